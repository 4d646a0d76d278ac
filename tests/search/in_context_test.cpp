// In-context calibration: profiler rows as ONNX Runtime and OpenVINO name them, attributed to pet's
// kernel groups (before -> after), the scales fitted from them, and the cost model applying them.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/text_ir.h"
#include "search/cost/cost_model.h"
#include "search/cost/in_context.h"
#include "search/cost/kernel_groups.h"
#include "tests/test_temp_dir.h"

namespace pet::testing {
namespace {

// A conv with its residual add and relu (one kernel group), then a transpose (another); the nodes
// carry the names an exporter gives them.
const char* kBlock = R"(graph "block" opset 13 {
  input %x : f32[1,8,6,6]
  const %w : f32[8,8,3,3] = random(1)
  const %b : f32[8] = random(2)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b) : f32[1,8,6,6] @"/block/conv/Conv"
  %s = Add(%c, %x) : f32[1,8,6,6] @"/block/Add"
  %r = Relu(%s) : f32[1,8,6,6] @"/block/relu/Relu"
  %t = Transpose[perm=[0,2,3,1]](%r) : f32[1,6,6,8] @"/head/Transpose"
  output %t
}
)";

runtime::NodeTime row(const std::string& name, double microseconds) { return {name, "op", "kernel", microseconds}; }

TEST(InContext, RowsNamedAfterANodeOrTheValueItWritesGoToThatNodesGroup) {
  Graph graph = parse_graph(kBlock);
  cost::KernelGrouping grouping = cost::kernel_groups(graph);
  ASSERT_EQ(grouping.groups.size(), 2u);
  // ONNX Runtime's blocked conv is named after the value its fused relu writes, plus "_nchwc";
  // OpenVINO names a conv "<node>/WithoutBiases" and reports the fused add and relu as zero.
  std::vector<runtime::NodeTime> rows = {row("ReorderInput", 3),       row("r_nchwc", 40),
                                         row("/block/conv/Conv/WithoutBiases", 2), row("/block/Add", 0),
                                         row("ReorderOutput", 4),      row("/head/Transpose", 6)};
  cost::GroupAttribution attribution = cost::attribute_rows(graph, grouping, rows);
  EXPECT_EQ(attribution.group_us, (std::vector<double>{42, 6}));
  EXPECT_EQ(attribution.unattributed_us, 7) << "the reorders name nothing of pet's graph";
  EXPECT_EQ(attribution.profiled_us, 55);
  EXPECT_EQ(attribution.rows_matched, 4);
  EXPECT_EQ(attribution.rows, 6);
}

TEST(InContext, OnnxRuntimesGemmOfAMatMulAndItsBiasGoesToTheirGroup) {
  Graph graph = parse_graph(R"(graph "linear" opset 13 {
  input %x : f32[2,4,8]
  const %w : f32[8,8] = random(1)
  const %b : f32[8] = random(2)
  %m = MatMul(%x, %w) : f32[2,4,8] @"/linear1/MatMul"
  %a = Add(%b, %m) : f32[2,4,8] @"/linear1/Add"
  %r = Relu(%a) : f32[2,4,8] @"/Relu"
  %t = Transpose[perm=[0,2,1]](%r) : f32[2,8,4] @"/Transpose"
  output %t
}
)");
  cost::KernelGrouping grouping = cost::kernel_groups(graph);
  ASSERT_EQ(grouping.groups.size(), 2u);
  // ONNX Runtime's MatMulAddFusion runs the MatMul and the Add as a Gemm between two Reshapes it
  // names itself; the Relu fused after it keeps its own row.
  cost::GroupAttribution attribution = cost::attribute_rows(
      graph, grouping,
      {row("gemm_input_reshape_token_1_kernel_time", 1), row("/linear1/MatMul/MatMulAddFusion_kernel_time", 30),
       row("gemm_output_reshape_token_2_kernel_time", 1), row("/Relu_kernel_time", 2), row("/Transpose_kernel_time", 5)});
  EXPECT_EQ(attribution.group_us, (std::vector<double>{32, 5}));
  EXPECT_EQ(attribution.unattributed_us, 2) << "the runtime's own Reshapes name nothing of pet's graph";
}

TEST(InContext, ARowNamingNothingOfTheGraphIsUnattributedNotGuessed) {
  Graph graph = parse_graph(kBlock);
  cost::KernelGrouping grouping = cost::kernel_groups(graph);
  cost::GroupAttribution attribution =
      cost::attribute_rows(graph, grouping, {row("/block/conv/Conv_extra", 5), row("input_f32_bf16_reorder", 1)});
  EXPECT_EQ(attribution.group_us, (std::vector<double>{0, 0}));
  EXPECT_EQ(attribution.unattributed_us, 6);
}

TEST(InContext, ScalesAreInContextOverStandAlonePerContextClassAndEndToEndOverProfiled) {
  Graph graph = parse_graph(kBlock);
  cost::KernelGrouping grouping = cost::kernel_groups(graph);
  cost::GroupAttribution attribution{{80, 10}, 10, 100, 3, 4};
  cost::ContextScales scales = cost::fit_scales(graph, grouping, attribution, {100, 10}, 40, 90);
  ASSERT_TRUE(scales.fitted);
  EXPECT_DOUBLE_EQ(scales.by_op.at("Conv+Add+Relu"), 0.8);
  EXPECT_DOUBLE_EQ(scales.by_op.at("Transpose"), 1.0);
  EXPECT_DOUBLE_EQ(scales.overall, 90.0 / 110.0);
  EXPECT_DOUBLE_EQ(scales.end_to_end, 0.9);
  EXPECT_DOUBLE_EQ(scales.factor("Conv+Add+Relu"), 0.8 * 0.9);
  EXPECT_DOUBLE_EQ(scales.factor("Conv"), 90.0 / 110.0 * 0.9) << "a conv without the add and relu is another kernel";
  EXPECT_DOUBLE_EQ(scales.factor("MatMul"), 90.0 / 110.0 * 0.9) << "an op the input lacks takes the overall ratio";
  EXPECT_DOUBLE_EQ(scales.reorder, 0.25) << "10 us of unattributed rows against 40 us of stand-alone reorders";
  EXPECT_DOUBLE_EQ(scales.reorder_factor(), 0.25 * 0.9);
  EXPECT_EQ(scales.groups_matched, 2);
}

// Before: a Concat the runtime writes in place (0.2 of its stand-alone time in context) and Relus
// before it. After moving the Relu below the Concat, the Concat+Relu group is a kernel the input
// never ran: it takes the overall scale, not the Concat's, and the fused Conv+Relu takes Conv+Relu's.
TEST(InContext, AReluMovedBelowAConcatDoesNotTakeTheConcatsScale) {
  Graph input = parse_graph(R"(graph "fire" opset 13 {
  input %x : f32[1,4,5,5]
  const %w : f32[4,4,1,1] = random(1)
  %a = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,4,5,5] @"a"
  %ar = Relu(%a) : f32[1,4,5,5] @"ar"
  %b = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,4,5,5] @"b"
  %br = Relu(%b) : f32[1,4,5,5] @"br"
  %c = Concat[axis=1](%ar, %br) : f32[1,8,5,5] @"c"
  output %c
}
)");
  cost::KernelGrouping grouping = cost::kernel_groups(input);
  cost::ContextScales scales = cost::fit_scales(input, grouping, {{40, 40, 2}, 0, 82, 3, 3}, {50, 50, 10}, 0, 82);
  ASSERT_TRUE(scales.fitted);
  EXPECT_DOUBLE_EQ(scales.by_op.at("Conv+Relu"), 0.8);
  EXPECT_DOUBLE_EQ(scales.by_op.at("Concat"), cost::kMinScale);

  Graph moved = parse_graph(R"(graph "fire" opset 13 {
  input %x : f32[1,4,5,5]
  const %w : f32[4,4,1,1] = random(1)
  %a = Conv[activation="relu", dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,4,5,5]
  %b = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,4,5,5]
  %c = Concat[axis=1](%a, %b) : f32[1,8,5,5]
  %r = Relu(%c) : f32[1,8,5,5]
  output %r
}
)");
  std::vector<std::string> classes;
  for (const cost::KernelGroup& group : cost::kernel_groups(moved).groups) classes.push_back(cost::context_class(moved, group));
  EXPECT_EQ(classes, (std::vector<std::string>{"Conv+Relu", "Conv", "Concat+Relu"}));
  EXPECT_DOUBLE_EQ(scales.factor("Conv+Relu"), 0.8);
  EXPECT_DOUBLE_EQ(scales.factor("Concat+Relu"), scales.overall);
  EXPECT_DOUBLE_EQ(scales.overall, 82.0 / 110.0);
}

TEST(InContext, ARatioOutsideTheClampIsAFailedAttributionAndIsClamped) {
  Graph graph = parse_graph(kBlock);
  cost::KernelGrouping grouping = cost::kernel_groups(graph);
  cost::ContextScales scales = cost::fit_scales(graph, grouping, {{2000, 1}, 0, 2001, 2, 2}, {100, 10}, 0, 2001);
  EXPECT_DOUBLE_EQ(scales.by_op.at("Conv+Add+Relu"), cost::kMaxScale);
  EXPECT_DOUBLE_EQ(scales.by_op.at("Transpose"), cost::kMinScale);
  EXPECT_EQ(scales.reorder, 1) << "no stand-alone reorders: nothing to scale";
}

TEST(InContext, RowsThatNameTooLittleOfTheRunFitNothing) {
  Graph graph = parse_graph(kBlock);
  cost::KernelGrouping grouping = cost::kernel_groups(graph);
  // 30 of 100 us attributed: the runtime renamed what it fused, and the rest would be guessed.
  cost::ContextScales scales = cost::fit_scales(graph, grouping, {{20, 10}, 70, 100, 2, 9}, {100, 10}, 0, 100);
  EXPECT_FALSE(scales.fitted);
  EXPECT_DOUBLE_EQ(scales.coverage, 0.3);
  EXPECT_EQ(scales.factor("Conv+Add+Relu"), 1);
}

TEST(InContext, NoRowsMeansNoScalesAndTheStandAloneTimesStand) {
  Graph graph = parse_graph(kBlock);
  cost::KernelGrouping grouping = cost::kernel_groups(graph);
  cost::ContextScales scales = cost::fit_scales(graph, grouping, {{0, 0}, 0, 0, 0, 0}, {100, 10}, 0, 50);
  EXPECT_FALSE(scales.fitted);
  EXPECT_EQ(scales.factor("Conv+Add+Relu"), 1);
  EXPECT_EQ(scales.reorder_factor(), 1);
}

// The cost model with a DB holding the stand-alone times and the in-context run of this graph (as a
// measured run records them): the replay fits the same scales and prices every group with them.
TEST(InContext, AReplayedRunScalesEveryGroupOfTheGraph) {
  Graph graph = parse_graph(kBlock);
  cost::KernelGrouping grouping = cost::kernel_groups(graph);
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"};
  measurement.picks_correction_lowering = true;
  std::string device = measurement.target.db_device();
  cost::ProfileDb db;
  auto add = [&](const std::string& key, double microseconds) {
    db.add({key, device, microseconds, "test", "onnxruntime 0.0.0", "2026-11-26"});
  };
  add(grouping.groups[0].key, 100);
  add(grouping.groups[1].key, 10);
  cost::CostModel before(cost::load_cpu_fallback(), db, measurement);
  EXPECT_EQ(before.graph_cost(graph), 110) << "before: the stand-alone sum";

  cost::CostModel probe(cost::load_cpu_fallback(), db, measurement);
  std::string base = cost::in_context_base(graph);
  add(base + " end-to-end", 45);
  add(base + " profiled", 50);
  add(base + " | " + grouping.groups[0].key, 40);
  add(base + " | " + grouping.groups[1].key, 10);
  cost::CostModel after(cost::load_cpu_fallback(), db, measurement);
  cost::ContextScales scales = after.calibrate_in_context(graph);
  ASSERT_TRUE(scales.fitted);
  EXPECT_DOUBLE_EQ(after.graph_cost(graph), (100 * 0.4 + 10 * 1.0) * 0.9) << "after: priced as it ran in context";
  EXPECT_EQ(after.standalone_graph_cost(graph), 110);
  EXPECT_FALSE(probe.calibrate_in_context(graph).fitted) << "a replayed DB without the run fits nothing";
  EXPECT_EQ(probe.graph_cost(graph), 110);
}

// A runtime whose profiler names every row after a node of the graph (nothing unattributed) and
// reports every group at 10 us and a whole run at 20 us.
class NamingRuntime : public runtime::Runtime {
 public:
  std::string target() const override { return "ort-cpu"; }
  std::string version() const override { return "onnxruntime 0.0.0"; }
  std::vector<runtime::Timing> time_models(const std::vector<runtime::ModelBytes>& models,
                                           const runtime::TimingOptions& options) override {
    std::vector<runtime::Timing> timings;
    for (size_t i = 0; i < models.size(); ++i) {
      runtime::Timing timing{std::vector<double>(static_cast<size_t>(options.runs), 20.0), {}};
      if (options.per_node) timing.nodes = {row("/block/conv/Conv", 10), row("/head/Transpose", 10)};
      timings.push_back(std::move(timing));
    }
    return timings;
  }
  std::vector<Tensor> run_model(const std::string&, const std::vector<Tensor>&, int) override { return {}; }
};

// Found by the batch-1 matrix: a run whose rows all name the graph has no unattributed time, and a
// zero-time entry made the saved DB one that the next pet-opt refused to load.
TEST(InContext, AMeasuredRunIsKeptAsADbThatLoadsAgainAndRefitsTheSameScales) {
  Graph graph = parse_graph(kBlock);
  NamingRuntime runtime;
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"};
  measurement.picks_correction_lowering = true;
  measurement.runtime = &runtime;
  cost::CostModel measured(cost::load_cpu_fallback(), {}, measurement);
  cost::ContextScales scales = measured.calibrate_in_context(graph);
  ASSERT_TRUE(scales.fitted);
  std::string path = (private_temp_dir() / "in-context-db.json").string();
  measured.profile().save(path);
  cost::ProfileDb loaded = cost::ProfileDb::load(path);  // before: "entry N needs microseconds > 0"
  measurement.runtime = nullptr;
  cost::CostModel replayed(cost::load_cpu_fallback(), loaded, measurement);
  cost::ContextScales again = replayed.calibrate_in_context(graph);
  EXPECT_EQ(again.by_op, scales.by_op);
  EXPECT_EQ(again.end_to_end, scales.end_to_end);
  EXPECT_EQ(replayed.graph_cost(graph), measured.graph_cost(graph));
}

}  // namespace
}  // namespace pet::testing
