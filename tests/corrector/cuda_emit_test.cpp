// The CUDA lowering of corrections: the emitted source before -> after for a seam correction,
// NVRTC compiling every kernel emitted for seeded partial mutants (so broken code fails CI on
// machines without a GPU), and, where a device exists, each kernel run against the CPU result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/ops/layout.h"
#include "core/text_ir.h"
#include "corrector/emit_cuda.h"
#include "corrector/fuse_corrections.h"
#include "kernels/devices.h"
#include "kernels/nvrtc_compile.h"
#include "tests/corrector/correction_cases.h"

namespace pet::corrector {
namespace {

// The seam example's N2H mutant, corrected on its two seam rows.
CorrectedProgram corrected_stacked_conv() {
  Graph original = correction_cases::seam_example_original(), mutant = correction_cases::seam_example_mutant();
  return correct(original, mutant, examine(original, mutant));
}

TEST(CudaEmit, SeamCorrectionBeforeAfter) {
  CorrectedProgram corrected = corrected_stacked_conv();
  ASSERT_EQ(corrected.corrections.size(), 2u);
  CudaKernel kernel = emit_cuda_kernel(correction_cases::seam_example_original(), corrected.corrections[0]);
  // Row 15 of image 0: taps on row 16 fall outside (the bottom pad), columns at both edges too.
  EXPECT_EQ(kernel.source, fmt::format(R"(// pet correction: output 0 box [0:1, 0:4, 15:16, 0:8] recomputed as Conv and written in place into `out`
// reads in0 = %x[0:1, 0:4, 14:16, 0:8], in1 = %w[0:4, 0:4, 0:3, 0:3]
extern "C" __global__ void __launch_bounds__(256) {}(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {{
  using index = int;
  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + static_cast<index>(threadIdx.x);
       i < 32; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {{
    index rest = i;
    const index o3 = rest % 8;
    rest /= 8;
    const index o2 = 15;
    const index o1 = rest % 4;
    rest /= 4;
    const index o0 = 0;
    float acc = 0.0f;
    for (index c = 0; c < 4; ++c) {{
      for (index k0 = 0; k0 < 3; ++k0) {{
        const index p0 = o2 - 1 + k0;
        if (p0 >= 16) continue;
        for (index k1 = 0; k1 < 3; ++k1) {{
          const index p1 = o3 - 1 + k1;
          if (p1 < 0 || p1 >= 8) continue;
          acc += in0[((o0 * 4 + c) * 16 + p0) * 8 + p1] * in1[((o1 * 4 + c) * 3 + k0) * 3 + k1];
        }}
      }}
    }}
    float v = acc;
    out[((o0 * 4 + o1) * 16 + o2) * 8 + o3] = v;
  }}
}}
)",
                                       kernel.name));
  EXPECT_EQ(kernel.params, (std::vector<std::string>{"x", "w"}));
  EXPECT_EQ(kernel.elements, 32);
  EXPECT_EQ(kernel.launch.to_string(), "grid 1, block 256");
}

TEST(CudaEmit, TheNameIsTheContentHash) {
  CorrectedProgram corrected = corrected_stacked_conv();
  Graph original = correction_cases::seam_example_original();
  CudaKernel first = emit_cuda_kernel(original, corrected.corrections[0]);
  EXPECT_EQ(first.name.substr(0, 15), "pet_correction_");
  EXPECT_EQ(first.name.size(), 15u + 16u);
  EXPECT_EQ(emit_cuda_kernel(original, corrected.corrections[0]).source, first.source);
  EXPECT_NE(emit_cuda_kernel(original, corrected.corrections[1]).name, first.name);
  CudaKernel fused = emit_cuda_kernel(original, corrected.corrections[0], {FusedActivation{"Relu", {}}});
  EXPECT_NE(fused.name, first.name);
  EXPECT_NE(fused.source.find("recomputed as Conv + Relu"), std::string::npos);
  EXPECT_NE(fused.source.find("    v = fmaxf(v, 0.0f);\n    out["), std::string::npos) << fused.source;
}

// The seam example's corrected program with a Relu after it, fused by fuse_corrections into one
// LayoutOverwrite[activation="relu"].
Graph fused_relu_program(const CorrectedProgram& corrected) {
  Graph fused = corrected.program;
  fused.set_outputs({fused.add_node1("Relu", {}, {fused.outputs()[0]}, "act")});
  EXPECT_EQ(fuse_corrections(fused), 1);
  return fused;
}

const Node& only_node_of(const Graph& graph, const std::string& op) {
  const Node* found = nullptr;
  for (const Node& node : graph.nodes())
    if (node.op() == op) found = &node;
  PET_CHECK(found, "no " + op + " node");
  return *found;
}

TEST(CudaEmit, AFusedLayoutOverwritePassesItsReluToItsCorrectionKernels) {
  CorrectedProgram corrected = corrected_stacked_conv();
  Graph fused = fused_relu_program(corrected);
  std::optional<FusedActivation> activation = fused_activation_of(only_node_of(fused, "LayoutOverwrite"));
  ASSERT_TRUE(activation.has_value());
  EXPECT_EQ(activation->op, "Relu");
  EXPECT_FALSE(fused_activation_of(only_node_of(corrected.program, "Layout")).has_value());
  CudaKernel kernel = emit_cuda_kernel(correction_cases::seam_example_original(), corrected.corrections[0], {activation});
  EXPECT_NE(kernel.source.find("recomputed as Conv + Relu"), std::string::npos) << kernel.source;
  EXPECT_NE(kernel.source.find("    v = fmaxf(v, 0.0f);\n    out["), std::string::npos) << kernel.source;
}

TEST(CudaEmit, LaunchConfigCoversTheBoxWithAGridStrideLoop) {
  EXPECT_EQ(launch_config(1).to_string(), "grid 1, block 256");
  EXPECT_EQ(launch_config(257).to_string(), "grid 2, block 256");
  EXPECT_EQ(launch_config(1 << 30).to_string(), "grid 1024, block 256");
  EXPECT_EQ(launch_config(1000, 128, 4).to_string(), "grid 4, block 128");
}

Correction whole_reads(const Graph& original, Box box) {
  Correction correction;
  correction.box = std::move(box);
  for (ValueId input : original.inputs()) correction.input_slices.push_back({original.value(input).name, {}});
  return correction;
}

TEST(CudaEmit, AnOriginalConvWithAFusedReluIsRecomputedWithIt) {
  Graph original = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,2,5,5]
  input %w : f32[3,2,3,3]
  %y = Conv[activation="relu", dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
  output %y
})");
  CudaKernel kernel = emit_cuda_kernel(original, whole_reads(original, {{0, 0, 0, 0}, {1, 3, 2, 5}}));
  EXPECT_NE(kernel.source.find("recomputed as Conv + Relu"), std::string::npos) << kernel.source;
  EXPECT_NE(kernel.source.find("    v = fmaxf(v, 0.0f);\n    out["), std::string::npos) << kernel.source;
}

TEST(CudaEmit, RejectsAnOriginalItCannotLower) {
  Graph add = parse_graph(R"(graph "g" opset 13 {
  input %a : f32[2,3]
  input %b : f32[2,3]
  %s = Add(%a, %b)
  output %s
})");
  try {
    emit_cuda_kernel(add, whole_reads(add, {{0, 0}, {1, 3}}));
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(),
                 "emit_cuda_kernel(): node 's' (Add) computes the corrected output; only Conv, MatMul or Gemm "
                 "followed by Relu, LeakyRelu, Sigmoid, Tanh, Elu, HardSigmoid, HardSwish, Softplus, Abs, Neg or "
                 "Identity lower to one kernel");
  }
  Graph conv = correction_cases::seam_example_original();
  try {
    emit_cuda_kernel(conv, whole_reads(conv, {{0, 0, 0, 0}, {1, 1, 1, 1}}), {FusedActivation{"Softmax", {}}});
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(),
                 "emit_cuda_kernel(): cannot fuse activation 'Softmax'; fuse Relu, LeakyRelu, Sigmoid, Tanh, Elu, "
                 "HardSigmoid, HardSwish, Softplus, Abs, Neg or Identity");
  }
}

// Kernels for one program, with the buffer they update in place and what it must hold after.
struct KernelCase {
  std::string label;
  Graph original;
  std::vector<Tensor> inputs;
  std::vector<float> before;  // the output buffer before the kernels run (the mutant's output)
  std::vector<float> want;    // after every kernel ran (the CPU corrected output)
  std::vector<CudaKernel> kernels;
};

std::vector<float> relu(std::span<const float> values) {
  std::vector<float> result;
  for (float value : values) result.push_back(std::max(value, 0.0f));
  return result;
}

// Every correction of seeded partial mutants of the three families, plain and with a fused Relu.
void add_mutant_cases(std::vector<KernelCase>& cases) {
  constexpr uint64_t kSeed = 2027;
  std::cout << "cuda emit test: mutant seed " << kSeed << "\n";
  for (auto weights : {correction_cases::Weights::Input, correction_cases::Weights::Constant}) {
    correction_cases::Rng rng(kSeed + static_cast<uint64_t>(weights));
    std::vector<correction_cases::Case> generated =
        correction_cases::generate_cases(rng, weights == correction_cases::Weights::Input ? 36 : 15, 2, weights);
    for (size_t i = 0; i < generated.size(); ++i) {
      const correction_cases::Case& c = generated[i];
      CorrectedProgram corrected = correct(c.original, c.mutant.program, c.mutant.verdict);
      std::vector<Tensor> inputs = random_inputs(c.original, kSeed + i);
      Tensor mutant_out = execute(c.mutant.program, inputs)[0];
      Tensor corrected_out = execute(corrected.program, inputs)[0];
      const char* weight = weights == correction_cases::Weights::Input ? "input" : "constant";
      std::string label = fmt::format("{} {} #{} ({})", c.family, weight, i, c.mutant.family);
      KernelCase plain{label, c.original, inputs, {mutant_out.f32().begin(), mutant_out.f32().end()},
                       {corrected_out.f32().begin(), corrected_out.f32().end()}, {}};
      KernelCase fused{label + " + Relu", c.original, inputs, relu(mutant_out.f32()), relu(corrected_out.f32()), {}};
      for (const Correction& correction : corrected.corrections) {
        plain.kernels.push_back(emit_cuda_kernel(c.original, correction));
        fused.kernels.push_back(emit_cuda_kernel(c.original, correction, {FusedActivation{"Relu", {}}}));
      }
      cases.push_back(std::move(plain));
      cases.push_back(std::move(fused));
    }
  }
}

struct HandCase {
  const char* ir;
  Box box;
  std::optional<FusedActivation> activation;
};

// The box of the original's (activated) output written into a buffer of sentinels.
KernelCase hand_kernel_case(size_t i, const HandCase& hand) {
  Graph original = parse_graph(fmt::format("graph \"g\" opset 13 {{\n {}\n output %y\n}}", hand.ir));
  std::vector<Tensor> inputs = random_inputs(original, 100 + i);
  Graph reference = original;
  if (hand.activation)
    reference.set_outputs({reference.add_node1(hand.activation->op, hand.activation->attrs, {reference.outputs()[0]})});
  Tensor full = execute(reference, inputs)[0];
  std::vector<float> before(static_cast<size_t>(full.numel()), 7.5f), want = before;
  std::vector<int64_t> index(static_cast<size_t>(full.shape().rank()));
  for (int64_t flat = 0; flat < full.numel(); ++flat) {
    int64_t rest = flat;
    for (int d = full.shape().rank() - 1; d >= 0; --d)
      index[static_cast<size_t>(d)] = rest % full.shape()[d], rest /= full.shape()[d];
    if (hand.box.contains(index)) want[static_cast<size_t>(flat)] = full.f32()[static_cast<size_t>(flat)];
  }
  CudaEmitOptions options;
  options.activation = hand.activation;
  KernelCase c{fmt::format("hand #{}: {}", i, original.node(0).op()), original, inputs, before, want, {}};
  c.kernels.push_back(emit_cuda_kernel(original, whole_reads(original, hand.box), options));
  return c;
}

// Ops and attributes the generated mutants do not reach: 1-D and 3-D, strides, groups, bias,
// MatMul broadcasting and 1-D operands, Gemm transposes with a broadcast C.
void add_hand_cases(std::vector<KernelCase>& cases) {
  const std::vector<HandCase> list = {
      {"input %x : f32[2,3,11]\n input %w : f32[4,3,3]\n input %b : f32[4]\n"
       "%y = Conv[dilations=[2], group=1, pads=[1,2], strides=[2]](%x, %w, %b)",
       {{0, 1, 2}, {2, 3, 5}}, std::nullopt},
      {"input %x : f32[1,4,7,6]\n input %w : f32[6,2,3,2]\n input %b : f32[6]\n"
       "%y = Conv[dilations=[1,2], group=2, pads=[1,0,1,1], strides=[2,1]](%x, %w, %b)",
       {{0, 2, 1, 0}, {1, 5, 4, 3}}, std::nullopt},
      {"input %x : f32[1,3,5,5]\n input %w : f32[3,1,3,3]\n"
       "%c = Conv[dilations=[1,1], group=3, pads=[1,1,1,1], strides=[1,1]](%x, %w)\n %y = Relu(%c)",
       {{0, 0, 0, 0}, {1, 3, 1, 5}}, std::nullopt},
      {"input %x : f32[1,2,4,5,5]\n input %w : f32[3,2,3,3,3]\n"
       "%y = Conv[dilations=[1,1,1], group=1, pads=[1,1,1,1,1,1], strides=[1,1,1]](%x, %w)",
       {{0, 0, 3, 0, 4}, {1, 3, 4, 5, 5}}, FusedActivation{"LeakyRelu", {{"alpha", 0.1}}}},
      {"input %a : f32[2,1,3,4]\n input %b : f32[5,4,6]\n %y = MatMul(%a, %b)", {{1, 0, 1, 2}, {2, 5, 3, 6}},
       std::nullopt},
      {"input %a : f32[4]\n input %b : f32[2,4,3]\n %y = MatMul(%a, %b)", {{0, 1}, {2, 3}}, std::nullopt},
      {"input %a : f32[2,3,4]\n input %b : f32[4]\n %y = MatMul(%a, %b)", {{1, 0}, {2, 3}},
       FusedActivation{"Sigmoid", {}}},
      {"input %a : f32[5,3]\n input %b : f32[4,5]\n input %c : f32[4]\n"
       "%y = Gemm[alpha=0.5, beta=2, transA=1, transB=1](%a, %b, %c)",
       {{1, 0}, {3, 4}}, FusedActivation{"HardSwish", {}}},
  };
  for (size_t i = 0; i < list.size(); ++i) cases.push_back(hand_kernel_case(i, list[i]));
}

// The seam corrections written into the output of the fused LayoutOverwrite[activation="relu"]:
// that buffer holds relu(mutant output) before, and what the CPU runs the fused node to after.
void add_fused_layout_overwrite_case(std::vector<KernelCase>& cases) {
  Graph original = correction_cases::seam_example_original(), mutant = correction_cases::seam_example_mutant();
  CorrectedProgram corrected = correct(original, mutant, examine(original, mutant));
  Graph fused = fused_relu_program(corrected);
  std::vector<Tensor> inputs = random_inputs(original, 31);
  Tensor mutant_out = execute(mutant, inputs)[0], fused_out = execute(fused, inputs)[0];
  KernelCase c{"seam LayoutOverwrite[activation=relu]", original, inputs, relu(mutant_out.f32()),
               {fused_out.f32().begin(), fused_out.f32().end()}, {}};
  CudaEmitOptions options;
  options.activation = fused_activation_of(only_node_of(fused, "LayoutOverwrite"));
  for (const Correction& correction : corrected.corrections)
    c.kernels.push_back(emit_cuda_kernel(original, correction, options));
  cases.push_back(std::move(c));
}

const std::vector<KernelCase>& kernel_cases() {
  static const std::vector<KernelCase> cases = [] {
    std::vector<KernelCase> all;
    add_mutant_cases(all);
    add_hand_cases(all);
    add_fused_layout_overwrite_case(all);
    return all;
  }();
  return cases;
}

// PTX per kernel name; equal corrections share a name, so each source compiles once.
const std::map<std::string, PtxCompilation>& compiled_kernels() {
  static const std::map<std::string, PtxCompilation> compiled = [] {
    std::map<std::string, PtxCompilation> result;
    for (const KernelCase& c : kernel_cases())
      for (const CudaKernel& kernel : c.kernels)
        if (!result.count(kernel.name)) result.emplace(kernel.name, compile_to_ptx(kernel.source, kernel.name + ".cu"));
    return result;
  }();
  return compiled;
}

TEST(CudaEmitNvrtc, EveryEmittedKernelCompilesForSm90) {
  const std::vector<KernelCase>& cases = kernel_cases();
  size_t kernels = 0;
  for (const KernelCase& c : cases) kernels += c.kernels.size();
  EXPECT_GE(cases.size(), 100u);
  const std::map<std::string, PtxCompilation>& compiled = compiled_kernels();
  std::vector<double> times;
  for (const KernelCase& c : cases)
    for (const CudaKernel& kernel : c.kernels) {
      const PtxCompilation& result = compiled.at(kernel.name);
      ASSERT_TRUE(result.ok()) << c.label << ": " << result.error << "\n" << kernel.source;
      EXPECT_EQ(result.log, "") << c.label << ": NVRTC diagnostics\n" << kernel.source;
      EXPECT_NE(result.ptx.find(".entry " + kernel.name), std::string::npos) << c.label;
      EXPECT_NE(result.ptx.find(".target sm_90"), std::string::npos) << c.label;
    }
  for (const auto& [name, result] : compiled) {
    times.push_back(result.compile_ms);
    std::cout << fmt::format("  nvrtc {}: {:.1f} ms, {} bytes of PTX\n", name, result.compile_ms, result.ptx.size());
  }
  std::sort(times.begin(), times.end());
  double total = 0;
  for (double t : times) total += t;
  std::cout << fmt::format("NVRTC {}: {} cases, {} kernels, {} distinct compiled; per kernel min {:.1f} ms, median "
                           "{:.1f} ms, max {:.1f} ms, total {:.0f} ms\n",
                           nvrtc_version(), cases.size(), kernels, times.size(), times.front(),
                           times[times.size() / 2], times.back(), total);
}

TEST(CudaEmitNvrtc, BrokenSourceFailsWithTheLog) {
  PtxCompilation result =
      compile_to_ptx("extern \"C\" __global__ void broken(float* out) {\n  out[0] = missing_value;\n}\n", "broken.cu");
  EXPECT_FALSE(result.ok());
  EXPECT_TRUE(result.ptx.empty());
  EXPECT_NE(result.log.find("broken.cu(2): error: identifier \"missing_value\" is undefined"), std::string::npos)
      << result.log;
  EXPECT_EQ(result.error.rfind("nvrtcCompileProgram: NVRTC_ERROR_COMPILATION\n", 0), 0u) << result.error;
  EXPECT_NE(result.error.find(result.log), std::string::npos);
}

TEST(CudaEmitDevice, KernelsMatchTheCpuCorrectedOutput) {
  DeviceReport report = probe_devices();
  // Only "no device" skips; a CUDA failure on a machine that has a GPU fails the test.
  ASSERT_NE(report.status.outcome, CudaOutcome::failed) << report.status.message;
  if (!report.status.ok()) GTEST_SKIP() << "no CUDA device here: " << report.status.message;
  for (const KernelCase& c : kernel_cases()) {
    std::vector<float> buffer = c.before;
    for (const CudaKernel& kernel : c.kernels) {
      std::vector<std::span<const float>> arguments;
      for (const std::string& name : kernel.params) {
        ValueId id = *c.original.find_value(name);
        auto position = std::find(c.original.inputs().begin(), c.original.inputs().end(), id);
        arguments.push_back(position != c.original.inputs().end()
                                ? c.inputs[static_cast<size_t>(position - c.original.inputs().begin())].f32()
                                : c.original.value(id).constant->f32());
      }
      PtxLaunch launch{compiled_kernels().at(kernel.name).ptx, kernel.name,
                       static_cast<uint32_t>(kernel.launch.grid), static_cast<uint32_t>(kernel.launch.block)};
      CudaStatus status = launch_ptx(0, launch, arguments, buffer);
      ASSERT_TRUE(status.ok()) << c.label << ": " << status.message;
    }
    for (size_t i = 0; i < buffer.size(); ++i) {
      double tolerance = 1e-4 * std::max(1.0, std::abs(static_cast<double>(c.want[i])));
      ASSERT_NEAR(buffer[i], c.want[i], tolerance) << c.label << ", flat index " << i;
    }
  }
}

}  // namespace
}  // namespace pet::corrector
