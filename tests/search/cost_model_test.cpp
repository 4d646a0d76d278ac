// The cost model: every op that runs costs something, folded weight preparation costs nothing,
// measured entries win, and the analytic curves rank programs the way a GPU would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/layout.h"
#include "core/registry.h"
#include "core/text_ir.h"
#include "search/cost/cost_model.h"
#include "search/cost/roofline.h"
#include "tests/test_temp_dir.h"

namespace pet::cost {
namespace {

using Ints = std::vector<int64_t>;

const CostModel& h100() {
  static const CostModel model(load_device("h100"));
  return model;
}

double graph_us(const std::string& device, const std::string& ir) { return CostModel(load_device(device)).graph_cost(parse_graph(ir)); }

// One conv on a graph input with a constant weight: `x` and `w` as "1x64x56x56", plus attributes.
std::string conv_ir(const std::string& x, const std::string& w, const std::string& y, const std::string& attrs) {
  return fmt::format(R"(graph "g" opset 13 {{
  input %x : f32[{}]
  const %w : f32[{}] = random(1)
  %y = Conv[{}](%x, %w) : f32[{}]
  output %y
}})",
                     x, w, attrs, y);
}

constexpr const char* kSame3x3 = "dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]";

void expect_user_error(const std::function<void()>& action, const std::string& message) {
  try {
    action();
    ADD_FAILURE() << "expected UserError: " << message;
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

std::string read_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// ---- one small valid instance of every registered op ----

TensorType type_of(const std::string& text) {  // "f32[2,3]"
  size_t open = text.find('[');
  TensorType type{*parse_dtype(text.substr(0, open)), Shape{}};
  std::vector<int64_t> dims;
  std::stringstream body(text.substr(open + 1, text.size() - open - 2));
  for (std::string dim; std::getline(body, dim, ',');) dims.push_back(std::stoll(dim));
  type.shape = Shape(dims);
  return type;
}

struct Instance {
  std::string op;
  Attributes attrs;
  std::vector<std::string> inputs;
};

// Ops that need attributes or particular inputs; every other op takes one of kGenericInputs.
std::vector<Instance> special_instances() {
  Attributes conv{{"strides", Ints{1, 1}}, {"pads", Ints{1, 1, 1, 1}}, {"dilations", Ints{1, 1}}};
  Attributes transposed = conv;
  transposed.set("output_padding", Ints{0, 0});
  Attributes pool{{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"pads", Ints{0, 0, 0, 0}}};
  Attributes max_pool = pool;
  max_pool.set("dilations", Ints{1, 1});
  Attributes layout = ops::layout_attrs({2, 4, 6, 6}, {0, 2, 3, 1}, {1, 1, 1, 1});
  Attributes layout_overwrite = layout;
  layout_overwrite.set("offsets", Ints{0, 0, 0, 0});
  return {
      {"Conv", conv, {"f32[1,4,6,6]", "f32[8,4,3,3]"}},
      {"ConvTranspose", transposed, {"f32[1,8,6,6]", "f32[8,4,3,3]"}},
      {"MatMul", {}, {"f32[4,8]", "f32[8,6]"}},
      {"Gemm", {}, {"f32[4,8]", "f32[8,6]"}},
      {"Attention", {{"num_heads", int64_t{2}}}, {"f32[1,4,8]", "f32[8,24]", "f32[24]"}},
      {"BatchNormalization", {}, {"f32[2,4,6,6]", "f32[4]", "f32[4]", "f32[4]", "f32[4]"}},
      {"InstanceNormalization", {}, {"f32[2,4,6,6]", "f32[4]", "f32[4]"}},
      {"LayerNormalization", {}, {"f32[2,4,6,6]", "f32[6]"}},
      {"Where", {}, {"bool[2,4]", "f32[2,4]", "f32[2,4]"}},
      {"Cast", {{"to", std::string("i64")}}, {"f32[2,4]"}},
      {"Reshape", {{"shape", Ints{2, 144}}}, {"f32[2,4,6,6]"}},
      {"Slice", {{"starts", Ints{0, 0, 0, 0}}, {"ends", Ints{1, 2, 3, 3}}, {"steps", Ints{1, 1, 1, 1}}}, {"f32[2,4,6,6]"}},
      {"Shape", {{"end", int64_t{4}}}, {"f32[2,4,6,6]"}},
      {"Pad", {{"pads", Ints{0, 0, 1, 1, 0, 0, 1, 1}}}, {"f32[2,4,6,6]"}},
      {"Split", {{"split", Ints{1, 1}}}, {"f32[2,4,6,6]"}},
      {"Expand", {{"shape", Ints{4, 6}}}, {"f32[4,1]"}},
      {"Tile", {{"repeats", Ints{1, 1, 2, 2}}}, {"f32[2,4,6,6]"}},
      {"Transpose", {{"perm", Ints{0, 2, 3, 1}}}, {"f32[2,4,6,6]"}},
      {"Squeeze", {{"axes", Ints{1}}}, {"f32[2,1,6]"}},
      {"Unsqueeze", {{"axes", Ints{0}}}, {"f32[2,6]"}},
      {"ConstantOfShape", {{"shape", Ints{2, 3}}}, {}},
      {"Range", {{"start", 0.0}, {"limit", 5.0}, {"delta", 1.0}}, {}},
      {"EyeLike", {{"dtype", std::string("f32")}}, {"f32[4,4]"}},
      {"OneHot", {{"axis", int64_t{-1}}, {"depth", int64_t{5}}}, {"i64[4]", "f32[2]"}},
      {"TopK", {{"k", int64_t{2}}}, {"f32[2,4,6,6]"}},
      {"CumSum", {{"axis", int64_t{0}}}, {"f32[2,4,6,6]"}},
      {"DepthToSpace", {{"blocksize", int64_t{2}}}, {"f32[1,8,3,3]"}},
      {"SpaceToDepth", {{"blocksize", int64_t{2}}}, {"f32[1,2,4,4]"}},
      {"MaxPool", max_pool, {"f32[2,4,6,6]"}},
      {"AveragePool", pool, {"f32[2,4,6,6]"}},
      {"Resize", {{"scales", std::vector<double>{1, 1, 2, 2}}, {"sizes", Ints{2, 4, 12, 12}}}, {"f32[2,4,6,6]"}},
      {"LRN", {{"size", int64_t{3}}}, {"f32[2,4,6,6]"}},
      {"Layout", layout, {"f32[2,4,6,6]"}},
      {"LayoutOverwrite", layout_overwrite, {"f32[2,4,6,6]", "f32[1,2,2,2]"}},
      {"Overwrite", {{"offsets", Ints{1, 2}}}, {"f32[4,6]", "f32[2,3]"}},
      {"Gather", {}, {"f32[4,6]", "i64[3]"}},
      {"GatherElements", {}, {"f32[4,6]", "i64[4,6]"}},
      {"GatherND", {}, {"f32[4,6]", "i64[2,1]"}},
      {"ScatterND", {}, {"f32[4,6]", "i64[2,1]", "f32[2,6]"}},
      {"ScatterElements", {}, {"f32[4,6]", "i64[4,6]", "f32[4,6]"}},
      {"ReverseSequence", {}, {"f32[5,3]", "i64[3]"}},
  };
}

const std::vector<std::vector<std::string>> kGenericInputs = {
    {"f32[2,4,6,6]"}, {"f32[2,4,6,6]", "f32[2,4,6,6]"}, {"bool[2,4]"}, {"bool[2,4]", "bool[2,4]"},
    {"i64[2,4]", "i64[2,4]"}};
// Reductions need axes, Concat an axis.
const std::vector<Attributes> kGenericAttributes = {{}, {{"axes", Ints{1}}}, {{"axis", int64_t{1}}}};

// A graph holding one node of `instance` on graph inputs, or nullopt when its shape rule refuses.
std::optional<Graph> try_instance(const Instance& instance, std::string& why) {
  Graph graph;
  std::vector<ValueId> inputs;
  for (size_t i = 0; i < instance.inputs.size(); ++i)
    inputs.push_back(graph.add_input("in" + std::to_string(i), type_of(instance.inputs[i])));
  try {
    for (ValueId output : graph.add_node(instance.op, instance.attrs, inputs, "n")) graph.add_output(output);
  } catch (const std::exception& error) {  // UserError from the shape rule, InternalError for missing attributes
    why = error.what();
    return std::nullopt;
  }
  return graph;
}

std::optional<Graph> instance_of(const OpDef& def, std::string& why) {
  for (const Instance& instance : special_instances())
    if (instance.op == def.name) return try_instance(instance, why);
  for (const auto& inputs : kGenericInputs)
    for (const Attributes& attrs : kGenericAttributes)
      if (auto graph = try_instance({def.name, attrs, inputs}, why)) return graph;
  return std::nullopt;
}

TEST(CostModel, EveryRegisteredOpThatRunsCostsMoreThanZero) {
  int priced = 0;
  for (const OpDef* def : OpRegistry::global().all()) {
    std::string why;
    std::optional<Graph> graph = instance_of(*def, why);
    if (!graph) {
      ADD_FAILURE() << def->name << ": no valid instance; add one to special_instances() (" << why << ")";
      continue;
    }
    NodeCost cost = h100().node_cost(*graph, 0);
    // Ops without inputs and ops that read only types (Shape, Size, EyeLike) are constants: folded.
    bool constant = def->max_inputs == 0 || def->traits.type_only;
    EXPECT_EQ(cost.folded, constant) << def->name;
    if (constant)
      EXPECT_EQ(cost.microseconds, 0.0) << def->name;
    else
      EXPECT_GE(cost.microseconds, h100().device().launch_overhead_us) << def->name;
    priced += constant ? 0 : 1;
  }
  EXPECT_GT(priced, 100);
}

// ---- folding, measured entries, memo ----

TEST(CostModel, WeightPreparationOnConstantsIsFoldedAndFree) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,4,8,8]
  const %w : f32[8,4,3,3] = random(1)
  %wt = Transpose[perm=[0,1,3,2]](%w) : f32[8,4,3,3]
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %wt) : f32[1,8,8,8]
  output %y
})");
  NodeCost prepare = h100().node_cost(graph, 0);
  EXPECT_TRUE(prepare.folded);
  EXPECT_EQ(prepare.microseconds, 0.0);
  NodeCost conv = h100().node_cost(graph, 1);
  EXPECT_FALSE(conv.folded);
  EXPECT_GT(conv.microseconds, 0.0);
  EXPECT_EQ(h100().graph_cost(graph), conv.microseconds);
}

TEST(CostModel, AGpuTargetsMeasuredGroupOverridesTheRooflineAndTheAnalyticSpecReadsNoDb) {
  Graph graph = parse_graph(conv_ir("1,64,56,56", "64,64,3,3", "1,64,56,56", kSame3x3));
  std::string key = kernel_groups(graph, GroupingRule::pet_gpu_steps).groups.at(0).key;
  Measurement measurement;
  measurement.target = {"h100", true, 1, "pet-gpu tf32 math (...), kernels 0123456789abcdef", "NVIDIA H100 80GB HBM3"};
  measurement.pet_gpu_kernels = true;
  ProfileDb db;
  db.add({key, measurement.target.db_device(), 12.5, "end to end", "pet-gpu", "2026-11-28", 0.1, 7});
  CostModel replayed(load_device("h100"), db, measurement);
  EXPECT_EQ(replayed.graph_cost(graph), 12.5);
  EXPECT_EQ(replayed.sources().replayed, 1);
  EXPECT_NE(h100().graph_cost(graph), 12.5) << "the analytic model is the roofline alone";
  // Without the entry, the GPU target estimates exactly what the analytic model does.
  CostModel estimated(load_device("h100"), ProfileDb{}, measurement);
  EXPECT_EQ(estimated.graph_cost(graph), h100().graph_cost(graph));
  EXPECT_EQ(estimated.sources().estimated, 1);
}

// The places of each kernel group's nodes in pet-gpu's kernels, one string per group, each group one
// pet-gpu step ("own kernel, fused").
std::vector<std::string> kernel_places(const Graph& graph) {
  KernelGrouping grouping = kernel_groups(graph, GroupingRule::pet_gpu_steps);
  std::vector<std::string> out;
  for (const KernelGroup& group : grouping.groups) {
    std::vector<std::string> names;
    for (KernelPlace place : gpu_kernel_places(grouping, group))
      names.push_back(kernel_place_name(place));
    out.push_back(fmt::format("{}", fmt::join(names, ", ")));
  }
  return out;
}

Measurement gpu_target_measurement() {
  Measurement measurement;
  measurement.target = {"h100", true, 1, "", ""};
  measurement.pet_gpu_kernels = true;
  return measurement;
}

TEST(CostModel, AGpuTargetEstimatesAGroupAsPetGpuFusesItsEpilogue) {
  Graph conv_epilogue = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,64,56,56]
  input %skip : f32[1,64,56,56]
  const %w : f32[64,64,3,3] = random(1)
  const %b : f32[1,64,1,1] = random(2)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,64,56,56]
  %cb = Add(%c, %b) : f32[1,64,56,56]
  %s = Add(%cb, %skip) : f32[1,64,56,56]
  %r = Relu(%s) : f32[1,64,56,56]
  output %r
})");
  // before: four kernels, as a CPU runtime's fallback prices them; after: cuDNN's bias, residual and ReLU epilogue
  EXPECT_EQ(kernel_places(conv_epilogue), (std::vector<std::string>{"own kernel, fused, fused, fused"}));
  double per_node = CostModel(load_device("h100"), ProfileDb{}, Measurement{}).graph_cost(conv_epilogue);
  double fused = CostModel(load_device("h100"), ProfileDb{}, gpu_target_measurement()).graph_cost(conv_epilogue);
  double conv_alone = h100().node_cost(conv_epilogue, 0).microseconds;
  EXPECT_LT(fused, per_node - 3 * load_device("h100").launch_overhead_us);
  EXPECT_GT(fused, conv_alone);
  // The residual's read (1x64x56x56 floats) is the epilogue's main cost: no launch, no write.
  EXPECT_NEAR(fused - conv_alone, 64 * 56 * 56 * 4 / (load_device("h100").bandwidth * load_device("h100").curves.bandwidth_peak) * 1e6,
              0.05 * (fused - conv_alone));

  // A convolution with its own bias: a per-channel Add is no residual, so it opens an elementwise
  // step, and the ReLU joins that step.
  EXPECT_EQ(kernel_places(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,8,8,8]
  const %w : f32[8,8,1,1] = random(1)
  const %bias : f32[8] = random(2)
  const %b : f32[1,8,1,1] = random(3)
  %c = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w, %bias) : f32[1,8,8,8]
  %cb = Add(%c, %b) : f32[1,8,8,8]
  %r = Relu(%cb) : f32[1,8,8,8]
  output %r
})")),
            (std::vector<std::string>{"own kernel", "own kernel, fused"}));
  // A GEMM takes a per-column bias and a ReLU; the Sigmoid after them is a kernel of its own.
  EXPECT_EQ(kernel_places(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[4,16]
  const %w : f32[16,32] = random(1)
  const %b : f32[32] = random(2)
  %m = MatMul(%x, %w) : f32[4,32]
  %mb = Add(%m, %b) : f32[4,32]
  %r = Relu(%mb) : f32[4,32]
  %s = Sigmoid(%r) : f32[4,32]
  output %s
})")),
            (std::vector<std::string>{"own kernel, fused, fused", "own kernel"}));
  // After a pool, the elementwise chain is one step.
  EXPECT_EQ(kernel_places(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,8,8,8]
  const %k : f32[1] = random(1)
  %p = MaxPool[ceil_mode=0, dilations=[1,1], kernel_shape=[2,2], pads=[0,0,0,0], strides=[2,2]](%x) : f32[1,8,4,4]
  %a = Mul(%p, %k) : f32[1,8,4,4]
  %r = Relu(%a) : f32[1,8,4,4]
  %e = Exp(%r) : f32[1,8,4,4]
  output %e
})")),
            (std::vector<std::string>{"own kernel", "own kernel, fused, fused"}));
}

// A layer normalization written out in nine standard ops, as BERT's exporter writes it.
const char* kWrittenOutLayerNorm = R"(graph "g" opset 13 {
  input %x : f32[128,768]
  const %two : f32[] = [2]
  const %eps : f32[] = [0.000001]
  const %gamma : f32[768] = random(1)
  const %beta : f32[768] = random(2)
  %mean = ReduceMean[axes=[-1], keepdims=1](%x) : f32[128,1]
  %d = Sub(%x, %mean) : f32[128,768]
  %sq = Pow(%d, %two) : f32[128,768]
  %var = ReduceMean[axes=[-1], keepdims=1](%sq) : f32[128,1]
  %ve = Add(%var, %eps) : f32[128,1]
  %sd = Sqrt(%ve) : f32[128,1]
  %n = Div(%d, %sd) : f32[128,768]
  %g = Mul(%n, %gamma) : f32[128,768]
  %y = Add(%g, %beta) : f32[128,768]
  output %y
})";

// Before: kernel groups of at most an op and three elementwise nodes cut it into four, each timed
// and priced with a launch and a round trip through memory; after: one group, pet-gpu's one
// layer_norm step, priced as one kernel.
TEST(CostModel, AGpuTargetsKernelGroupsArePetGpusStepsSoAWrittenOutLayerNormIsOneGroup) {
  Graph graph = parse_graph(kWrittenOutLayerNorm);
  EXPECT_EQ(kernel_groups(graph).groups.size(), 4u);
  KernelGrouping steps = kernel_groups(graph, GroupingRule::pet_gpu_steps);
  ASSERT_EQ(steps.groups.size(), 1u);
  EXPECT_EQ(steps.groups[0].nodes.size(), 9u);
  EXPECT_EQ(kernel_places(graph),
            (std::vector<std::string>{"own kernel, fused, fused, fused, fused, fused, fused, fused, fused"}));
  CostModel gpu(load_device("h200"), ProfileDb{}, gpu_target_measurement());
  double one_step = gpu.graph_cost(graph);
  EXPECT_EQ(gpu.sources().estimated, 1);
  // Fused, no node but the first pays a launch and no intermediate value goes to memory: below nine
  // kernels, one per node, by more than their eight extra launches.
  double per_node = CostModel(load_device("h200"), ProfileDb{}, Measurement{}).graph_cost(graph);
  EXPECT_LT(one_step, per_node - 8 * gpu.device().launch_overhead_us);
  EXPECT_GT(one_step, gpu.device().launch_overhead_us);
}

// Before: a search rewrite left the scale computed from constants (finalize folds it before
// pet-gpu runs), and the layer_norm pattern, asking for a constant, left the nine nodes to the
// other rules: five groups; after: the scale counts as known, and the nine nodes are one group, as
// pet-gpu will run them.
TEST(CostModel, AWrittenOutLayerNormWhoseScaleFinalizeFoldsIsStillOneGroup) {
  std::string text = kWrittenOutLayerNorm;
  auto replace_once = [&](const std::string& from, const std::string& to) { text.replace(text.find(from), from.size(), to); };
  replace_once("  const %gamma : f32[768] = random(1)\n", "  const %half : f32[768] = random(1)\n  const %doubler : f32[] = [2]\n");
  replace_once("  %mean = ", "  %gamma = Mul(%half, %doubler) : f32[768]\n  %mean = ");
  Graph graph = parse_graph(text);
  ASSERT_FALSE(graph.is_constant(graph.node(0).outputs[0]));  // the scale, computed
  KernelGrouping steps = kernel_groups(graph, GroupingRule::pet_gpu_steps);
  ASSERT_EQ(steps.groups.size(), 1u);
  EXPECT_EQ(steps.groups[0].nodes.size(), 9u);
}

// A corrected convolution: the patch (a Slice and a Conv of its rows) and the correction that writes it.
const char* kCorrectedConv = R"(graph "g" opset 13 {
  input %m : f32[1,8,16,16]
  input %x : f32[1,8,18,18]
  const %w : f32[8,8,3,3] = random(1)
  %s = Slice[ends=[1,8,3,18], starts=[0,0,0,0], steps=[1,1,1,1]](%x) : f32[1,8,3,18]
  %p = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%s, %w) : f32[1,8,1,16]
  %o = Overwrite[offsets=[0,0,0,0]](%m, %p) : f32[1,8,16,16]
  output %o
})";

// pet-gpu computes a correction's patches in steps of their own before the correction's one kernel
// (kernels/gpu/codegen/correction.cpp), so a GPU target prices them as steps: before, the patch's
// Slice and Conv were priced as recomputed inside the correction kernel, without launches; after,
// three steps, each with its launch.
TEST(CostModel, AGpuTargetPricesACorrectionsPatchesAsTheStepsPetGpuRunsThemIn) {
  Graph graph = parse_graph(kCorrectedConv);
  EXPECT_EQ(kernel_places(graph), (std::vector<std::string>{"own kernel", "own kernel", "own kernel"}));
  CostModel gpu(load_device("h200"), ProfileDb{}, gpu_target_measurement());
  double steps = gpu.graph_cost(graph);
  EXPECT_EQ(gpu.sources().estimated, 3);
  double each_alone = 0;
  for (NodeId id = 0; id < 3; ++id) each_alone += estimated_node_us(gpu.device(), graph, id, false);
  EXPECT_DOUBLE_EQ(steps, each_alone);
  EXPECT_GT(steps, CostModel(load_device("h200")).graph_cost(graph)) << "the analytic model recomputes patches in place";
}

// A Reshape before a MatMul, its output a graph output or not.
Graph reshape_then_matmul(bool reshape_is_output) {
  return parse_graph(fmt::format(R"(graph "g" opset 13 {{
  input %x : f32[8,16]
  const %w : f32[32,8] = random(1)
  %v = Reshape[shape=[4,32]](%x) : f32[4,32]
  %m = MatMul(%v, %w) : f32[4,8]
  output %m{}
}})",
                                 reshape_is_output ? "\n  output %v" : ""));
}

TEST(CostModel, AGpuTargetPricesAViewAsNothingUnlessItIsAGraphOutput) {
  Graph inside = reshape_then_matmul(false);
  EXPECT_EQ(kernel_places(inside), (std::vector<std::string>{"view", "own kernel"}));
  // before: a target timing every group (a CPU runtime) prices and counts the Reshape; after: pet-gpu
  // reads the MatMul's input in place, so nothing is priced, timed or counted for it
  CostModel per_group(load_device("h100"), ProfileDb{}, Measurement{});
  CostModel gpu(load_device("h100"), ProfileDb{}, gpu_target_measurement());
  double matmul = gpu.graph_cost(inside);
  EXPECT_EQ(gpu.sources().estimated, 1);
  EXPECT_GT(per_group.graph_cost(inside), matmul);
  EXPECT_EQ(per_group.sources().estimated, 2);
  // A view whose output the graph returns is a copy of its own.
  Graph returned = reshape_then_matmul(true);
  EXPECT_EQ(kernel_places(returned), (std::vector<std::string>{"own kernel", "own kernel"}));
  CostModel gpu_returned(load_device("h100"), ProfileDb{}, gpu_target_measurement());
  EXPECT_GT(gpu_returned.graph_cost(returned), matmul);
  EXPECT_EQ(gpu_returned.sources().estimated, 2);
}

// pet-gpu refuses arithmetic on i64 values (kernels/gpu/plan/op_support.h): such a node is a group
// of its own, priced as one kernel, and the grouping goes on around it.
TEST(CostModel, ANodePetGpuCannotRunIsAGroupOfItsOwn) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
  input %a : i64[8]
  %b = Add(%a, %a) : i64[8]
  %c = Cast[to="f32"](%b) : f32[8]
  %d = Relu(%c) : f32[8]
  output %d
})");
  EXPECT_EQ(kernel_places(graph), (std::vector<std::string>{"own kernel", "own kernel, fused"}));
  CostModel gpu(load_device("h200"), ProfileDb{}, gpu_target_measurement());
  EXPECT_GT(gpu.graph_cost(graph), 2 * gpu.device().launch_overhead_us);
  EXPECT_EQ(gpu.sources().estimated, 2);
}

// Two convolutions concatenated along channels, at batch `n`.
Graph concat_of_convs(int n) {
  return parse_graph(fmt::format(R"(graph "g" opset 13 {{
  input %x : f32[{0},8,8,8]
  const %w1 : f32[8,8,1,1] = random(1)
  const %w2 : f32[8,8,1,1] = random(2)
  %a = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w1) : f32[{0},8,8,8]
  %b = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w2) : f32[{0},8,8,8]
  %c = Concat[axis=1](%a, %b) : f32[{0},16,8,8]
  %y = Relu(%c) : f32[{0},16,8,8]
  output %y
}})",
                                 n));
}

// At batch 1 each channel block is one byte range, so the convolutions write straight into the
// Concat's output and pet-gpu runs no kernel for it (storage.h); at batch 2 it is a copy kernel.
TEST(CostModel, AGpuTargetPricesAConcatWrittenInPlaceAsNothing) {
  EXPECT_EQ(kernel_places(concat_of_convs(1)), (std::vector<std::string>{"own kernel", "own kernel", "view", "own kernel"}));
  EXPECT_EQ(kernel_places(concat_of_convs(2)),
            (std::vector<std::string>{"own kernel", "own kernel", "own kernel", "own kernel"}));
  CostModel gpu(load_device("h200"), ProfileDb{}, gpu_target_measurement());
  gpu.graph_cost(concat_of_convs(1));
  // Distinct groups: one convolution key (the weights' values are not in it), the ReLU; the Concat
  // in place is neither priced, timed nor counted.
  EXPECT_EQ(gpu.sources().estimated, 2);
}

TEST(CostModel, MemoReturnsTheSameCostForTheSameSignature) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,64,28,28]
  %a = Relu(%x) : f32[1,64,28,28]
  %b = Relu(%a) : f32[1,64,28,28]
  output %b
})");
  CostModel model(load_device("h100"));
  NodeCost first = model.node_cost(graph, 0);
  NodeCost again = model.node_cost(graph, 1);
  EXPECT_EQ(first.microseconds, again.microseconds);
  EXPECT_EQ(first.bytes, again.bytes);
  EXPECT_EQ(model.graph_cost(graph), 2 * first.microseconds);
}

// ---- device specs ----

TEST(DeviceSpec, ShippedDevicesLoadByNameFromAnyDirectory) {
  EXPECT_EQ(known_devices(), (std::vector<std::string>{"a100", "h100", "h200", "v100"}));
  auto previous = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::temp_directory_path());
  DeviceSpec h = load_device("h100");
  std::filesystem::current_path(previous);
  EXPECT_EQ(h.name, "h100");
  EXPECT_EQ(h.sm_count, 132);
  EXPECT_DOUBLE_EQ(h.tf32_flops, 494e12);
  EXPECT_DOUBLE_EQ(h.bandwidth, 3350e9);
  EXPECT_GT(h.curves.conv_peak, 0.0);
  EXPECT_TRUE(h.efficiency.contains("dilated"));
}

TEST(DeviceSpec, LoadsAUsersFileByPath) {
  std::string text = read_text(std::string(PET_SOURCE_DIR) + "/search/cost/devices/a100.json");
  auto at = text.find("\"a100\"");
  text.replace(at, 6, "\"my-gpu\"");
  std::string path = (pet::testing::private_temp_dir() / "my-gpu.json").string();
  write_text(path, text);
  DeviceSpec spec = load_device(path);
  EXPECT_EQ(spec.name, "my-gpu");
  EXPECT_EQ(spec.sm_count, 108);
}

TEST(DeviceSpec, UnknownDeviceNamesTheKnownOnes) {
  expect_user_error([] { load_device("b200"); },
                    "unknown device 'b200': pet ships specs for a100, h100, h200, v100 and no readable file has that path; "
                    "pass one of those names or the path of a device spec JSON file shaped like "
                    "search/cost/devices/h100.json");
}

TEST(DeviceSpec, UndocumentedCurveParameterIsAnError) {
  expect_user_error([] { parse_device(R"({"name": "x", "description": "x", "fp32_tflops": 1, "tf32_tflops": 1,
      "fp16_tflops": 1, "bandwidth_gb_per_s": 1, "launch_overhead_us": 1, "sm_count": 1,
      "efficiency": {"gemm_peak": 0.5}})", "x.json"); },
                    "device spec 'x.json': efficiency \"gemm_peak\" must be {\"value\": a number in (0, 1], \"doc\": "
                    "\"what it means\"}");
  expect_user_error([] { parse_device(R"({"name": "x", "description": "x"})", "x.json"); },
                    "device spec 'x.json': \"fp32_tflops\" is missing or not a positive number");
}

// h100.json's text with one efficiency value replaced ("value": `from` -> `to`).
std::string h100_with(const std::string& field, const std::string& from, const std::string& to) {
  std::string text = read_text(std::string(PET_SOURCE_DIR) + "/search/cost/devices/h100.json");
  std::string before = "\"" + field + "\": {\"value\": " + from + ",";
  auto at = text.find(before);
  EXPECT_NE(at, std::string::npos) << before;
  return at == std::string::npos ? text : text.replace(at, before.size(), "\"" + field + "\": {\"value\": " + to + ",");
}

// conv_fixed_us may be 0 (no card of that kind measured) but not negative.
TEST(DeviceSpec, ConvFixedTimeIsANonNegativeNumber) {
  EXPECT_EQ(load_device("h100").curves.conv_fixed_us, 0.0);
  expect_user_error([] { parse_device(h100_with("conv_fixed_us", "0", "-1"), "h100.json"); },
                    "device spec 'h100.json': efficiency \"conv_fixed_us\" must be {\"value\": a number >= 0, "
                    "\"doc\": \"what it means\"}");
  EXPECT_GT(load_device("h200").curves.conv_fixed_us, 0.0);  // fitted to an H200's per-step times
}

// A split-K limit or a tile size below 1 has no meaning (the tile model would clamp into an empty range).
TEST(DeviceSpec, SplitKLimitAndTileSizesAreCountsOfAtLeastOne) {
  expect_user_error([] { parse_device(h100_with("split_k_max", "8", "0.5"), "h100.json"); },
                    "device spec 'h100.json': efficiency \"split_k_max\" must be {\"value\": a number >= 1, "
                    "\"doc\": \"what it means\"}");
  expect_user_error([] { parse_device(h100_with("tile_m", "128", "0.5"), "h100.json"); },
                    "device spec 'h100.json': efficiency \"tile_m\" must be {\"value\": a number >= 1, "
                    "\"doc\": \"what it means\"}");
}

// ---- profile DB ----

TEST(ProfileDb, MalformedFilesAreUserErrorsNamingTheFile) {
  std::string path = (pet::testing::private_temp_dir() / "bad.json").string();
  write_text(path, "{\"entries\": [");
  expect_user_error([&] { ProfileDb::load(path); },
                    "profile DB '" + path + "' is not valid JSON at byte 14; fix it or write it again with pet-profile");
  write_text(path, R"({"entries": [{"device": "h100", "key": "Relu(f32[4]) f32", "method": "own kernel",
      "libraries": "CUDA 13.0", "date": "2025-01-01"}]})");
  expect_user_error([&] { ProfileDb::load(path); }, "profile DB '" + path + "': entry 0 needs \"microseconds\" > 0");
  write_text(path, R"({"rows": []})");
  expect_user_error([&] { ProfileDb::load(path); },
                    "profile DB '" + path + "': expected {\"entries\": [...]} and nothing else");
  expect_user_error([] { ProfileDb::load("/nonexistent/db.json"); },
                    "profile DB '/nonexistent/db.json' cannot be opened; pass an existing file (an empty DB is "
                    "{\"entries\": []})");
}

TEST(ProfileDb, RoundTripIsByteIdenticalAndSorted) {
  ProfileDb db;
  db.add({"Relu(f32[1,64,56,56]) f32", "h100", 3.25, "own kernel", "CUDA 13.0", "2025-01-02"});
  db.add({"Conv[group=1](f32[1,3,8,8], f32[4,3,1,1]) f32", "h100", 7.0, "cudnn", "CUDA 13.0, cuDNN 9.19.0", "2025-01-02"});
  db.add({"Relu(f32[1,64,56,56]) f32", "a100", 4.5, "own kernel", "CUDA 12.8", "2025-01-03"});
  ASSERT_EQ(db.entries().size(), 3u);
  EXPECT_EQ(db.entries()[0].device, "a100");
  EXPECT_EQ(db.entries()[1].key, "Conv[group=1](f32[1,3,8,8], f32[4,3,1,1]) f32");
  std::string path = (pet::testing::private_temp_dir() / "db.json").string();
  db.save(path);
  std::string first = read_text(path);
  ProfileDb again = ProfileDb::load(path);
  again.save(path);
  EXPECT_EQ(read_text(path), first);
  EXPECT_EQ(again.lookup("h100", "Relu(f32[1,64,56,56]) f32"), 3.25);
  EXPECT_EQ(again.lookup("v100", "Relu(f32[1,64,56,56]) f32"), std::nullopt);
  // add() replaces the entry with the same device and key.
  again.add({"Relu(f32[1,64,56,56]) f32", "h100", 2.0, "own kernel", "CUDA 13.0", "2025-02-01"});
  EXPECT_EQ(again.entries().size(), 3u);
  EXPECT_EQ(again.lookup("h100", "Relu(f32[1,64,56,56]) f32"), 2.0);
}

// Two runs read the same DB, each measures something, and each saves: neither loses the other's
// entries; where both changed one entry the later save's stands; an entry only the other run
// changed keeps the other run's value.
TEST(ProfileDb, RunsSharingADbKeepEachOthersMeasurements) {
  std::string path = (pet::testing::private_temp_dir() / "shared-db.json").string();
  ProfileDb start;
  start.add({"Relu(f32[1,8]) f32", "ort-cpu", 1.0, "measured", "onnxruntime 1.32.0", "2026-11-27"});
  start.add({"Neg(f32[1,8]) f32", "ort-cpu", 2.0, "measured", "onnxruntime 1.32.0", "2026-11-27"});
  start.save(path);
  ProfileDb first_read = ProfileDb::load(path), second_read = ProfileDb::load(path);

  ProfileDb first = first_read, second = second_read;
  first.add({"Abs(f32[1,8]) f32", "ort-cpu", 3.0, "measured", "onnxruntime 1.32.0", "2026-11-28"});
  first.add({"Neg(f32[1,8]) f32", "ort-cpu", 2.5, "measured", "onnxruntime 1.32.0", "2026-11-28"});
  second.add({"Exp(f32[1,8]) f32", "ort-cpu", 4.0, "measured", "onnxruntime 1.32.0", "2026-11-28"});
  first.save_merged(path, first_read);
  second.save_merged(path, second_read);

  ProfileDb after = ProfileDb::load(path);
  EXPECT_EQ(after.entries().size(), 4u);
  EXPECT_EQ(after.lookup("ort-cpu", "Abs(f32[1,8]) f32"), 3.0) << "the first run's new entry";
  EXPECT_EQ(after.lookup("ort-cpu", "Exp(f32[1,8]) f32"), 4.0) << "the second run's new entry";
  EXPECT_EQ(after.lookup("ort-cpu", "Neg(f32[1,8]) f32"), 2.5) << "changed by the first run only";
  EXPECT_EQ(after.lookup("ort-cpu", "Relu(f32[1,8]) f32"), 1.0);
  EXPECT_TRUE(std::filesystem::exists(path + ".lock"));
}

TEST(ProfileDb, SavingMergedIntoAMissingFileWritesWhatWasMeasured) {
  std::string path = (pet::testing::private_temp_dir() / "new-folder" / "db.json").string();
  ProfileDb measured;
  measured.add({"Relu(f32[1,8]) f32", "ort-cpu", 1.0, "measured", "onnxruntime 1.32.0", "2026-11-27"});
  measured.save_merged(path, ProfileDb{});
  EXPECT_EQ(ProfileDb::load(path).lookup("ort-cpu", "Relu(f32[1,8]) f32"), 1.0);
}

TEST(ProfileDb, SavingMergedIntoAFileThatBecameMalformedIsAUserError) {
  std::string path = (pet::testing::private_temp_dir() / "broken-db.json").string();
  std::ofstream(path) << "{\"entries\": [";
  ProfileDb measured;
  measured.add({"Relu(f32[1,8]) f32", "ort-cpu", 1.0, "measured", "onnxruntime 1.32.0", "2026-11-27"});
  EXPECT_THROW(measured.save_merged(path, ProfileDb{}), UserError);
  EXPECT_EQ(read_text(path), "{\"entries\": [") << "the file is left as it was";
}

TEST(ProfileDb, TheCommittedGpuDbsLoadAndAreInCanonicalForm) {
  for (const char* card : {"h100", "h200"}) {
    std::string path = std::string(PET_SOURCE_DIR) + "/bench/profiles/" + card + ".json";
    EXPECT_EQ(ProfileDb::load(path).to_json_text(), read_text(path)) << path;
  }
}

// ---- the curves rank programs like a GPU ----

TEST(Roofline, BiggerConvCostsMore) {
  double small = graph_us("h100", conv_ir("1,64,28,28", "64,64,3,3", "1,64,28,28", kSame3x3));
  double wider = graph_us("h100", conv_ir("1,64,28,28", "128,64,3,3", "1,128,28,28", kSame3x3));
  double larger = graph_us("h100", conv_ir("1,64,56,56", "128,64,3,3", "1,128,56,56", kSame3x3));
  double batched = graph_us("h100", conv_ir("8,64,56,56", "128,64,3,3", "8,128,56,56", kSame3x3));
  EXPECT_LT(small, wider);
  EXPECT_LT(wider, larger);
  EXPECT_LT(larger, batched);
}

TEST(Roofline, DilatedConvCostsMoreThanUndilatedConvWithTheSameFlops) {
  // Same input, weight and output shapes (pads grow with the dilation), so the same FLOPs.
  const char* kDilated = "dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]";
  double plain = graph_us("h100", conv_ir("8,256,56,56", "256,256,3,3", "8,256,56,56", kSame3x3));
  double dilated = graph_us("h100", conv_ir("8,256,56,56", "256,256,3,3", "8,256,56,56", kDilated));
  EXPECT_GT(dilated, plain * 1.3);
  // Small and bound by memory or launch, it still costs more.
  EXPECT_GT(graph_us("h100", conv_ir("1,64,14,14", "64,64,3,3", "1,64,14,14", kDilated)),
            graph_us("h100", conv_ir("1,64,14,14", "64,64,3,3", "1,64,14,14", kSame3x3)));
}

TEST(Roofline, TwoSmallConvsCostMoreThanOneMergedConvOfTwiceTheChannels) {
  // What lets the search reward merging convs that share an input (PET's and TASO's grouping).
  std::string two = R"(graph "g" opset 13 {
  input %x : f32[1,64,14,14]
  const %w1 : f32[64,64,3,3] = random(1)
  const %w2 : f32[64,64,3,3] = random(2)
  %a = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1) : f32[1,64,14,14]
  %b = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w2) : f32[1,64,14,14]
  output %a
  output %b
})";
  double merged = graph_us("h100", conv_ir("1,64,14,14", "128,64,3,3", "1,128,14,14", kSame3x3));
  EXPECT_GT(graph_us("h100", two), merged * 1.3);
}

TEST(Roofline, H100IsFasterThanV100OnABigConv) {
  std::string big = conv_ir("16,256,56,56", "256,256,3,3", "16,256,56,56", kSame3x3);
  double h = graph_us("h100", big), a = graph_us("a100", big), v = graph_us("v100", big);
  EXPECT_LT(h, a);
  EXPECT_LT(a, v);
  EXPECT_GT(v / h, 10.0);  // TF32 tensor cores against Volta's CUDA-core f32
}

TEST(Roofline, SmallGemmsWasteSmsAndUnalignedChannelsSlowTensorCores) {
  const DeviceSpec& device = h100().device();
  Workload big{2.0 * 4096 * 4096 * 4096, 3 * 4096.0 * 4096 * 4, Engine::TensorCoreGemm, {1, 4096, 4096, 4096}, 4096, 4096};
  Workload tiny{2.0 * 64 * 64 * 4096, 4.0 * (64 * 4096 * 2 + 64 * 64), Engine::TensorCoreGemm, {1, 64, 64, 4096}, 4096, 64};
  auto achieved = [&](const Workload& w) { return w.flops / (kernel_time(device, w).total_us * 1e-6) / device.tf32_flops; };
  EXPECT_GT(achieved(big), 0.6);
  EXPECT_LT(achieved(tiny), 0.1);
  Workload unaligned = big;
  unaligned.output_channels = 4094;
  EXPECT_GT(kernel_time(device, unaligned).compute_us, 1.5 * kernel_time(device, big).compute_us);
}

// Before: on the H200 most small batch-1 convolutions took 9-20 µs however small (cuDNN's graph-API engine,
// its split-K reduction and the epilogue kernel), and the roofline priced it at one launch. After:
// a spec's conv_fixed_us is added to every tensor-core convolution, and to nothing else.
TEST(Roofline, ConvFixedTimeIsAddedToTensorCoreConvolutionsAlone) {
  DeviceSpec device = h100().device();
  Workload conv{2.0 * 49 * 64 * 576, 4.0 * (49 * 64 * 2 + 64 * 576), Engine::TensorCoreConv, {1, 49, 64, 576}, 576, 64};
  Workload gemm = conv;
  gemm.engine = Engine::TensorCoreGemm;
  Workload relu{49.0 * 64, 8.0 * 49 * 64, Engine::CudaCore, {}, 0, 0};
  double conv_before = kernel_time(device, conv).total_us, gemm_before = kernel_time(device, gemm).total_us;
  double relu_before = kernel_time(device, relu).total_us;
  device.curves.conv_fixed_us = 7.5;
  EXPECT_DOUBLE_EQ(kernel_time(device, conv).total_us, conv_before + 7.5);
  EXPECT_DOUBLE_EQ(kernel_time(device, gemm).total_us, gemm_before);
  EXPECT_DOUBLE_EQ(kernel_time(device, relu).total_us, relu_before);
  EXPECT_EQ(engine_name(Engine::TensorCoreConv), std::string("tensor-core-conv"));
}

TEST(Roofline, BandwidthEfficiencyRisesWithBytesMoved) {
  const EfficiencyCurves& curves = h100().device().curves;
  EXPECT_LT(bandwidth_efficiency(curves, 64e3), bandwidth_efficiency(curves, 64e6));
  EXPECT_LT(bandwidth_efficiency(curves, 64e3), 0.1);
  EXPECT_GT(bandwidth_efficiency(curves, 1e9), 0.8);
}

TEST(Roofline, DepthwiseAndGroupedConvsReachLessOfPeakThanDenseOnes) {
  double dense = graph_us("h100", conv_ir("8,256,56,56", "256,256,3,3", "8,256,56,56", kSame3x3));
  double grouped = graph_us("h100", conv_ir("8,256,56,56", "256,8,3,3", "8,256,56,56",
                                            "dilations=[1,1], group=32, pads=[1,1,1,1], strides=[1,1]"));
  // 32 times fewer FLOPs, but far less than 32 times faster.
  EXPECT_GT(grouped, dense / 8);
}

}  // namespace
}  // namespace pet::cost
