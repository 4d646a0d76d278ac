// The column path and the GEMM configs computed on the CPU as the card would compute them, against
// pet's CPU executor: each generated kernel (im2col, the conv epilogue) compiled by this machine's
// C++ compiler behind a shim that runs its grid-stride loop as one thread, and every cuBLASLt call
// of a GemmConfig done by a column-major reference of cuBLASLt's semantics (layouts, leading
// dimensions, strided batches, transposes, per-call offsets, alpha, beta and C, bias, ReLU).
// So a wrong index, layout or stride shows here, before a card runs it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <string>
#include <vector>

#include "core/executor.h"
#include "core/text_ir.h"
#include "kernels/gpu/executor/conv_columns.h"
#include "kernels/gpu/executor/conv_epilogue.h"
#include "kernels/gpu/executor/host_program.h"
#include "kernels/gpu/executor/reference.h"
#include "kernels/gpu/executor/transpose_folding.h"
#include "kernels/gpu/executor/weight_layout.h"

namespace pet::gpu {
namespace {

namespace fs = std::filesystem;

// What the generated kernels' text needs from CUDA, on a host: one block of one thread.
constexpr const char* kShim = R"(#include <cmath>
#include <cstdio>
#include <vector>
#define __global__
#define __launch_bounds__(x)
#define __restrict__ __restrict
struct Dim { unsigned x = 0, y = 0, z = 0; };
static Dim blockIdx, threadIdx, blockDim{1, 1, 1}, gridDim{1, 1, 1};
)";

std::vector<float> read_floats(const fs::path& file, size_t count) {
  std::vector<float> values(count);
  std::ifstream in(file, std::ios::binary);
  in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(count * sizeof(float)));
  EXPECT_TRUE(in.good()) << file;
  return values;
}

void write_floats(const fs::path& file, const std::vector<float>& values) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
}

// Runs `kernel` (every parameter a float buffer) on the host: buffers[i] is parameter i's, read
// before and written back after (an output buffer sized to what the kernel writes).
void run_on_host(const codegen::GeneratedKernel& kernel, std::vector<std::vector<float>>& buffers) {
  fs::path folder = fs::path(::testing::TempDir()) / ("pet_host_" + kernel.name);
  fs::create_directories(folder);
  std::string driver = "int main() {\n";
  std::string call;
  for (size_t i = 0; i < buffers.size(); ++i) {
    driver += fmt::format("  std::vector<float> b{0}({1});\n  {{ FILE* f = std::fopen(\"{2}\", \"rb\"); "
                          "if (std::fread(b{0}.data(), 4, {1}, f) != {1}) return 1; std::fclose(f); }}\n",
                          i, buffers[i].size(), (folder / fmt::format("{}.in", i)).string());
    call += fmt::format("{}b{}.data()", i ? ", " : "", i);
    write_floats(folder / fmt::format("{}.in", i), buffers[i]);
  }
  driver += fmt::format("  {}({});\n", kernel.name, call);
  for (size_t i = 0; i < buffers.size(); ++i)
    driver += fmt::format("  {{ FILE* f = std::fopen(\"{}\", \"wb\"); std::fwrite(b{}.data(), 4, {}, f); std::fclose(f); }}\n",
                          (folder / fmt::format("{}.out", i)).string(), i, buffers[i].size());
  driver += "  return 0;\n}\n";
  std::ofstream(folder / "kernel.cpp") << kShim << kernel.source << driver;
  std::string command = fmt::format("{} -std=c++17 -O1 -o {} {} 2> {}", PET_HOST_CXX, (folder / "kernel").string(),
                                    (folder / "kernel.cpp").string(), (folder / "compile.log").string());
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  ASSERT_EQ(std::system((folder / "kernel").string().c_str()), 0);
  for (size_t i = 0; i < buffers.size(); ++i)
    buffers[i] = read_floats(folder / fmt::format("{}.out", i), buffers[i].size());
}

// One cuBLASLt matmul as its documentation defines it, column-major: D = act(alpha * op(A) op(B) +
// beta * C + bias), per strided batch and per call of config.calls, C in D's layout.
void lt_matmul(const GemmConfig& g, const float* a, const float* b, const float* c, float* d, const float* bias) {
  std::vector<GemmCallOffsets> calls = g.calls.empty() ? std::vector<GemmCallOffsets>{{}} : g.calls;
  for (const GemmCallOffsets& call : calls)
    for (int batch = 0; batch < g.batch; ++batch) {
      const float* ab = a + call.a + batch * g.layout_a.batch_stride;
      const float* bb = b + call.b + batch * g.layout_b.batch_stride;
      int64_t d_offset = call.d + batch * g.layout_d.batch_stride;
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < g.k; ++p) {
            float av = g.transpose_a ? ab[p + i * g.layout_a.ld] : ab[i + p * g.layout_a.ld];
            float bv = g.transpose_b ? bb[j + p * g.layout_b.ld] : bb[p + j * g.layout_b.ld];
            sum += static_cast<double>(av) * bv;
          }
          int64_t at = d_offset + i + j * g.layout_d.ld;
          double value = g.alpha * sum + (g.beta != 0 ? g.beta * c[at] : 0.0) + (bias ? bias[i] : 0.0f);
          d[at] = static_cast<float>(g.relu ? std::max(value, 0.0) : value);
        }
    }
}

const std::vector<float>& floats_of(const Tensor& tensor, std::vector<float>& storage) {
  storage.assign(tensor.f32().begin(), tensor.f32().end());
  return storage;
}

double largest_difference(const std::vector<float>& got, const Tensor& expected) {
  double largest = 0;
  for (size_t i = 0; i < got.size(); ++i)
    largest = std::max(largest, std::abs(static_cast<double>(got[i]) - expected.f32()[i]));
  return largest;
}

// The conv step of `ir` (graph inputs x, then r when it has a residual) on the column path, on
// the host, against pet's CPU executor on the same seeded inputs.
void expect_column_path_matches(const std::string& ir, ColumnEpilogue expected_epilogue) {
  Graph graph = parse_graph(ir);
  HostProgram program = prepare_host_program(graph);
  ASSERT_EQ(program.steps.size(), 1u) << ir;
  const StepProgram& step = program.steps.front();
  ASSERT_TRUE(step.column_path && step.conv.has_value());
  const ConvConfig& config = *step.conv;
  ColumnPlan plan = *column_plan(config);
  EXPECT_EQ(plan.epilogue, expected_epilogue);
  ReferenceData reference = compute_reference(graph, 17);
  std::vector<float> x, w, residual, scratch;
  floats_of(reference.inputs[0], x);
  floats_of(*graph.value(config.w).constant, w);
  if (config.residual != kNoValue) floats_of(reference.inputs[1], residual);
  std::vector<float> columns = x;
  if (!plan.reads_input) {
    std::vector<std::vector<float>> buffers{x, std::vector<float>(static_cast<size_t>(plan.bytes / 4))};
    run_on_host(*step.columns, buffers);
    columns = buffers[1];
  }
  std::vector<float> y(static_cast<size_t>(config.output_elements()), -7.0f), c = y;
  std::vector<float> bias = config.bias == kNoValue || !config.bias_is_weight
                                ? std::vector<float>()
                                : per_channel_values(*graph.value(config.bias).constant, config.channels());
  if (plan.epilogue == ColumnEpilogue::bias_as_c) c = column_bias_matrix(bias, plan.images, plan.pixels);
  if (plan.epilogue == ColumnEpilogue::residual_as_c) c = residual;
  lt_matmul(plan.gemm, columns.data(), w.data(), c.data(), y.data(), nullptr);
  if (plan.epilogue == ColumnEpilogue::kernel) {
    std::vector<std::vector<float>> buffers;
    if (config.bias != kNoValue) buffers.push_back(bias);
    if (config.residual != kNoValue) buffers.push_back(residual);
    buffers.push_back(y);
    run_on_host(conv_epilogue_kernel(config), buffers);
    y = buffers.back();
  }
  EXPECT_LT(largest_difference(y, reference.outputs[0]), 1e-4) << ir;
}

TEST(ColumnPathOnTheHost, AsymmetricPadsStridesAndDilationsMatchTheCpuExecutor) {
  expect_column_path_matches(R"(graph "g" opset 13 {
  input %x : f32[2,3,7,6]
  const %w : f32[4,3,3,2] = random(1)
  %y = Conv[dilations=[2,1], group=1, pads=[0,1,2,0], strides=[1,2]](%x, %w) : f32[2,4,5,3]
  output %y
})",
                             ColumnEpilogue::none);
}

TEST(ColumnPathOnTheHost, AWeightBiasIsCAndTheReluCublasLtsEpilogue) {
  expect_column_path_matches(R"(graph "g" opset 13 {
  input %x : f32[1,4,6,6]
  const %w : f32[5,4,3,3] = random(2)
  const %b : f32[5] = random(3)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b) : f32[1,5,6,6]
  %y = Relu(%c) : f32[1,5,6,6]
  output %y
})",
                             ColumnEpilogue::bias_as_c);
}

TEST(ColumnPathOnTheHost, AResidualIsCAndABiasWithItTheGeneratedEpilogue) {
  expect_column_path_matches(R"(graph "g" opset 13 {
  input %x : f32[2,3,5,5]
  input %r : f32[2,4,5,5]
  const %w : f32[4,3,3,3] = random(4)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[2,4,5,5]
  %s = Add(%c, %r) : f32[2,4,5,5]
  %y = Relu(%s) : f32[2,4,5,5]
  output %y
})",
                             ColumnEpilogue::residual_as_c);
  expect_column_path_matches(R"(graph "g" opset 13 {
  input %x : f32[2,3,5,5]
  input %r : f32[2,4,5,6]
  const %w : f32[4,3,3,3] = random(5)
  const %b : f32[4] = random(6)
  %c = Conv[dilations=[1,1], group=1, pads=[1,0,1,3], strides=[1,1]](%x, %w, %b) : f32[2,4,5,6]
  %s = Add(%c, %r) : f32[2,4,5,6]
  %y = Relu(%s) : f32[2,4,5,6]
  output %y
})",
                             ColumnEpilogue::kernel);
}

TEST(ColumnPathOnTheHost, APointwiseConvolutionReadsItsInput) {
  expect_column_path_matches(R"(graph "g" opset 13 {
  input %x : f32[3,6,4,5]
  const %w : f32[2,6,1,1] = random(7)
  %y = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[3,2,4,5]
  output %y
})",
                             ColumnEpilogue::none);
}

// The GEMM steps' configs (partly broadcast batches as several calls, a computed per-column C as
// the bias, a scale as alpha) through the reference of cuBLASLt, against the CPU executor.
// Before: a MatMul's bias in cuBLASLt's epilogue, and the residual Add after it one more kernel.
// After: the residual is the GEMM's C (beta 1) too, so one step computes relu(x w + bias + r).
TEST(ColumnPathOnTheHost, AMatMulsResidualIsItsGemmsC) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[2,4,5]
  input %r : f32[2,4,6]
  const %w : f32[5,6] = random(9)
  const %bias : f32[6] = random(10)
  %m = MatMul(%x, %w) : f32[2,4,6]
  %b = Add(%m, %bias) : f32[2,4,6]
  %y = Add(%b, %r) : f32[2,4,6]
  output %y
})");
  HostProgram program = prepare_host_program(graph);
  ASSERT_EQ(program.steps.size(), 1u) << format_host_program(program);
  const GemmConfig& config = *program.steps.front().gemm;
  EXPECT_EQ(graph.value(config.c).name, "r");
  EXPECT_EQ(config.beta, 1.0f);
  EXPECT_EQ(graph.value(config.bias).name, "bias");
}

TEST(ColumnPathOnTheHost, GemmConfigsComputeWhatTheCpuExecutorComputes) {
  for (const char* ir : {R"(graph "g" opset 13 {
  input %a : f32[2,3,4,5]
  input %b : f32[1,3,5,6]
  %y = MatMul(%a, %b) : f32[2,3,4,6]
  output %y
})",
                         R"(graph "g" opset 13 {
  input %a : f32[2,1,4,5]
  input %b : f32[1,3,5,6]
  %y = MatMul(%a, %b) : f32[2,3,4,6]
  output %y
})",
                         R"(graph "g" opset 13 {
  input %f : f32[4,5]
  input %s : f32[6]
  const %w : f32[6,5] = random(8)
  %y = Gemm[alpha=0.5, beta=1.0, transA=0, transB=1](%f, %w, %s) : f32[4,6]
  output %y
})",
                         R"(graph "g" opset 13 {
  input %q : f32[2,4,8]
  input %k : f32[2,8,4]
  const %c : f32[] = [8.0]
  %s = MatMul(%q, %k) : f32[2,4,4]
  %y = Div(%s, %c) : f32[2,4,4]
  output %y
})",
                         R"(graph "g" opset 13 {
  input %x : f32[4,5]
  input %r : f32[4,6]
  const %w : f32[5,6] = random(9)
  const %bias : f32[6] = random(10)
  %m = MatMul(%x, %w) : f32[4,6]
  %b = Add(%m, %bias) : f32[4,6]
  %s = Add(%r, %b) : f32[4,6]
  %y = Relu(%s) : f32[4,6]
  output %y
})",
                         R"(graph "g" opset 13 {
  input %a : f32[2,3,4,5]
  input %b : f32[1,3,5,6]
  input %r : f32[2,3,4,6]
  %m = MatMul(%a, %b) : f32[2,3,4,6]
  %y = Add(%m, %r) : f32[2,3,4,6]
  output %y
})"}) {
    Graph graph = parse_graph(ir);
    HostProgram program = prepare_host_program(graph);
    ASSERT_EQ(program.steps.size(), 1u) << ir;
    const GemmConfig& config = *program.steps.front().gemm;
    ReferenceData reference = compute_reference(graph, 23);
    auto values = [&](ValueId id) {
      std::vector<float> storage;
      for (size_t i = 0; i < graph.inputs().size(); ++i)
        if (graph.inputs()[i] == id) return floats_of(reference.inputs[i], storage);
      return floats_of(*graph.value(id).constant, storage);
    };
    std::vector<float> a = values(config.a), b = values(config.b);
    std::vector<float> bias = config.bias == kNoValue ? std::vector<float>() : values(config.bias);
    std::vector<float> d(static_cast<size_t>(reference.outputs[0].numel()), -7.0f);
    std::vector<float> c = config.c == kNoValue ? d : values(config.c);  // a MatMul's residual
    lt_matmul(config, a.data(), b.data(), c.data(), d.data(), bias.empty() ? nullptr : bias.data());
    EXPECT_LT(largest_difference(d, reference.outputs[0]), 1e-4) << ir;
  }
}

// Attention's transposes around its MatMuls, folded: Q and V split into heads ([0,2,1,3]), K into
// heads transposed ([0,2,3,1]), the heads back ([0,2,1,3]). After: the four transpose steps run
// nothing, and the two GEMMs, reading the projections and writing the heads' output through the
// transposes' strides, compute what pet's CPU executor computes.
TEST(ColumnPathOnTheHost, AttentionsTransposesFoldedIntoItsGemms) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
  input %q : f32[1,5,12]
  input %k : f32[1,5,12]
  input %v : f32[1,5,12]
  input %p : f32[1,3,5,5]
  %qr = Reshape[shape=[1,5,3,4]](%q) : f32[1,5,3,4]
  %qt = Transpose[perm=[0,2,1,3]](%qr) : f32[1,3,5,4]
  %kr = Reshape[shape=[1,5,3,4]](%k) : f32[1,5,3,4]
  %kt = Transpose[perm=[0,2,3,1]](%kr) : f32[1,3,4,5]
  %s = MatMul(%qt, %kt) : f32[1,3,5,5]
  %vr = Reshape[shape=[1,5,3,4]](%v) : f32[1,5,3,4]
  %vt = Transpose[perm=[0,2,1,3]](%vr) : f32[1,3,5,4]
  %o = MatMul(%p, %vt) : f32[1,3,5,4]
  %ot = Transpose[perm=[0,2,1,3]](%o) : f32[1,5,3,4]
  %r = Relu(%ot) : f32[1,5,3,4]
  output %s
  output %r
})");
  HostProgram program = prepare_host_program(graph);
  int folded = 0;
  for (const StepProgram& step : program.steps) folded += step.folded_into >= 0 ? 1 : 0;
  EXPECT_EQ(folded, 4);
  ReferenceData reference = compute_reference(graph, 29);
  auto input = [&](ValueId id) {  // through views (the Reshapes) to the graph input holding the bytes
    ValueId root = storage_root(program.plan.values, id).value;
    std::vector<float> storage;
    for (size_t i = 0; i < graph.inputs().size(); ++i)
      if (graph.inputs()[i] == root) return floats_of(reference.inputs[i], storage);
    ADD_FAILURE() << "a GEMM reads " << graph.value(id).name << ", no graph input";
    return storage;
  };
  std::vector<const GemmConfig*> gemms;
  for (const StepProgram& step : program.steps)
    if (step.gemm) gemms.push_back(&*step.gemm);
  ASSERT_EQ(gemms.size(), 2u);
  // root buffers by name: q, k, v, p are inputs; the first GEMM writes s, the second ot (which
  // the Relu then reads).
  std::vector<float> s(static_cast<size_t>(reference.outputs[0].numel()), -7.0f), ot(60, -7.0f);
  std::vector<float> q = input(gemms[0]->b), k = input(gemms[0]->a);
  EXPECT_EQ(graph.value(gemms[0]->d).name, "s");
  lt_matmul(*gemms[0], k.data(), q.data(), s.data(), s.data(), nullptr);
  EXPECT_LT(largest_difference(s, reference.outputs[0]), 1e-4);
  std::vector<float> p = input(gemms[1]->b), v = input(gemms[1]->a);
  EXPECT_EQ(graph.value(gemms[1]->d).name, "ot");
  lt_matmul(*gemms[1], v.data(), p.data(), ot.data(), ot.data(), nullptr);
  for (float& value : ot) value = std::max(value, 0.0f);
  EXPECT_LT(largest_difference(ot, reference.outputs[1]), 1e-4);
}

// An output transpose that is not its own inverse ([2,0,1,3]): the GEMM's D axes take the
// destination's strides through the inverse permutation (rows 36 apart, the 2 x 3 batches 6).
// [1,2,0,3] leaves the batches at strides that collapse into no single one: not folded.
TEST(ColumnPathOnTheHost, AnOutputTransposeIsReadThroughItsInversePermutation) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
  input %a : f32[2,3,5,4]
  input %b : f32[2,3,4,6]
  %m = MatMul(%a, %b) : f32[2,3,5,6]
  %t = Transpose[perm=[2,0,1,3]](%m) : f32[5,2,3,6]
  %y = Relu(%t) : f32[5,2,3,6]
  output %y
})");
  HostProgram program = prepare_host_program(graph);
  HostProgram kept = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %a : f32[2,3,5,4]
  input %b : f32[2,3,4,6]
  %m = MatMul(%a, %b) : f32[2,3,5,6]
  %t = Transpose[perm=[1,2,0,3]](%m) : f32[3,5,2,6]
  output %t
})"));
  EXPECT_EQ(kept.steps.back().folded_into, -1);
  ASSERT_EQ(program.steps.size(), 3u);
  EXPECT_EQ(program.steps[1].folded_into, 0);
  const GemmConfig& gemm = *program.steps[0].gemm;
  ReferenceData reference = compute_reference(graph, 31);
  std::vector<float> a, b, d(180, -7.0f);
  floats_of(reference.inputs[0], a);
  floats_of(reference.inputs[1], b);
  lt_matmul(gemm, b.data(), a.data(), d.data(), d.data(), nullptr);
  for (float& value : d) value = std::max(value, 0.0f);
  EXPECT_LT(largest_difference(d, reference.outputs[0]), 1e-4) << gemm.key();
}

// The plan keeps a transpose's source alive to the GEMM that alone reads the transpose (so the
// GEMM can read through it). Before: a plan whose arena gave h's bytes to z between h's transpose
// and the GEMM (as one without that would). After: that transpose is not folded, as the GEMM would
// read z's values in place of h's; z's, whose bytes hold, is.
TEST(ColumnPathOnTheHost, ATransposeWhoseSourceBytesAreReusedBeforeTheGemmIsNotFolded) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,5,12]
  input %w : f32[1,5,12]
  %h = Relu(%x) : f32[1,5,12]
  %hr = Reshape[shape=[1,5,3,4]](%h) : f32[1,5,3,4]
  %ht = Transpose[perm=[0,2,1,3]](%hr) : f32[1,3,5,4]
  %z = Sigmoid(%w) : f32[1,5,12]
  %zr = Reshape[shape=[1,5,3,4]](%z) : f32[1,5,3,4]
  %zt = Transpose[perm=[0,2,3,1]](%zr) : f32[1,3,4,5]
  %s = MatMul(%ht, %zt) : f32[1,3,5,5]
  output %s
})");
  HostProgram program = prepare_host_program(graph);
  int h_transpose = -1, z_transpose = -1, gemm = -1;
  for (size_t s = 0; s < program.plan.steps.size(); ++s) {
    const std::string& name = program.plan.nodes[static_cast<size_t>(program.plan.steps[s].nodes.front())].name;
    if (name == "ht") h_transpose = static_cast<int>(s);
    if (name == "zt") z_transpose = static_cast<int>(s);
    if (name == "s") gemm = static_cast<int>(s);
  }
  ASSERT_TRUE(h_transpose >= 0 && z_transpose >= 0 && gemm >= 0);
  EXPECT_EQ(program.steps[static_cast<size_t>(h_transpose)].folded_into, gemm) << "the plan kept h's bytes";
  // Undo the folds, give z h's bytes over z's own lifetime (after h's transpose), fold again.
  for (StepProgram& step : program.steps) step.folded_into = -1;
  program.steps[static_cast<size_t>(gemm)].gemm = prepare_gemm(graph, program.plan.steps[static_cast<size_t>(gemm)]).config;
  auto storage_of = [&](const char* name) -> ValueStorage& {
    for (PlannedValue& value : program.plan.values)
      if (value.name == name) return value.storage;
    throw std::runtime_error(name);
  };
  ValueStorage &h = storage_of("h"), &z = storage_of("z");
  ASSERT_EQ(h.kind, StorageKind::arena);
  ASSERT_EQ(z.kind, StorageKind::arena);
  h.lifetime.last_step = h_transpose;
  z.offset = h.offset;
  ASSERT_GT(z.lifetime.first_step, h_transpose);
  fold_transposes(graph, program);
  EXPECT_EQ(program.steps[static_cast<size_t>(h_transpose)].folded_into, -1);
  EXPECT_EQ(program.steps[static_cast<size_t>(z_transpose)].folded_into, gemm) << "z's bytes hold until the GEMM";
}

}  // namespace
}  // namespace pet::gpu
