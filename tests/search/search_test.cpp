// The search end to end on small graphs: modes, determinism, budgets, evidence, cost order.
#include <gtest/gtest.h>

#include "core/structural_hash.h"
#include "core/text_ir.h"
#include "search/pipeline.h"

namespace pet {
namespace {

// Two convolutions reading one input (the Inception pattern): merging them saves a launch.
const char* kParallelConvs = R"(graph "parallel" opset 13 {
  input %x : f32[1,16,14,14]
  const %w1 : f32[16,16,3,3] = random(1)
  const %w2 : f32[16,16,3,3] = random(2)
  %a = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1) : f32[1,16,14,14]
  %b = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w2) : f32[1,16,14,14]
  %ra = Relu(%a) : f32[1,16,14,14]
  %rb = Relu(%b) : f32[1,16,14,14]
  output %ra
  output %rb
}
)";

// CSRNet's back end in miniature: a dilated conv, which PET turns into a regular one on
// de-interleaved rows and columns (correct except at the seams, which the corrections fix).
const char* kDilatedConv = R"(graph "dilated" opset 13 {
  input %x : f32[1,8,14,14]
  const %w : f32[8,8,3,3] = random(3)
  %c = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%x, %w) : f32[1,8,14,14]
  %r = Relu(%c) : f32[1,8,14,14]
  output %r
}
)";

OptimizeOptions quick(const std::string& mode) {
  OptimizeOptions options;
  options.mode = mode;
  options.beam = 4;
  options.time_limit_s = 120;
  options.mutation_rounds = 1;
  options.top_k = 3;
  return options;
}

TEST(Search, NoneModeRunsNoSearch) {
  OptimizeResult result = optimize(parse_graph(kParallelConvs), quick("none"));
  EXPECT_TRUE(result.transformations.empty());
  EXPECT_EQ(result.search.stop_reason, "no-search");
  EXPECT_TRUE(result.check.passed);
  EXPECT_GT(result.cost_optimized_us, 0);
  EXPECT_DOUBLE_EQ(result.cost_optimized_us, result.cost_original_us);
}

TEST(Search, CostOrderIsPetTasoNone) {
  for (const char* text : {kParallelConvs, kDilatedConv}) {
    Graph graph = parse_graph(text);
    double none = optimize(graph, quick("none")).cost_optimized_us;
    OptimizeResult taso = optimize(graph, quick("taso"));
    OptimizeResult pet = optimize(graph, quick("pet"));
    SCOPED_TRACE(graph.name);
    EXPECT_LE(taso.cost_optimized_us, none);
    EXPECT_LE(pet.cost_optimized_us, taso.cost_optimized_us);
    EXPECT_TRUE(taso.check.passed);
    EXPECT_TRUE(pet.check.passed) << pet.check.max_abs_error();
  }
}

TEST(Search, MergesParallelConvsWithRandomTestEvidence) {
  OptimizeResult result = optimize(parse_graph(kParallelConvs), quick("taso"));
  ASSERT_FALSE(result.transformations.empty()) << report_table(result);
  EXPECT_LT(result.cost_optimized_us, result.cost_original_us);
  int convs = 0;
  for (const Node& node : result.graph.nodes()) convs += node.op() == "Conv";
  EXPECT_EQ(convs, 1) << print_graph(result.graph);
  for (const Transformation& step : result.transformations) {
    EXPECT_TRUE(step.evidence_kind == "random-test" || step.evidence_kind == "z3-proof") << step.evidence_kind;
    EXPECT_LE(step.cost_after_us, step.cost_before_us * 1.05 + 1e-9);
  }
}

TEST(Search, PetCorrectsTheDilatedConvSeams) {
  OptimizeResult result = optimize(parse_graph(kDilatedConv), quick("pet"));
  bool corrected = false;
  for (const Transformation& step : result.transformations)
    if (step.evidence_kind == "partial+correction") {
      corrected = true;
      EXPECT_GT(step.correction_overhead, 0);
      EXPECT_NE(step.evidence.find("correction"), std::string::npos) << step.evidence;
    }
  EXPECT_TRUE(corrected) << report_table(result);
  EXPECT_TRUE(result.check.passed) << result.check.max_abs_error();
  EXPECT_LT(result.check.max_abs_error(), 1e-3);
}

TEST(Search, SameInputAndFlagsGiveTheSameProgramAndReport) {
  Graph graph = parse_graph(kParallelConvs);
  OptimizeResult first = optimize(graph, quick("pet"));
  OptimizeResult second = optimize(graph, quick("pet"));
  EXPECT_EQ(print_graph(first.graph), print_graph(second.graph));
  EXPECT_EQ(report_json(first, false), report_json(second, false));
}

TEST(Search, ExpansionBudgetEndsWithItsStopReason) {
  OptimizeOptions options = quick("taso");
  options.max_expansions = 1;
  OptimizeResult result = optimize(parse_graph(kParallelConvs), options);
  EXPECT_EQ(result.search.stop_reason, "expansion-limit");
  EXPECT_EQ(result.search.expansions, 1);
  EXPECT_TRUE(result.check.passed);
}

TEST(Search, TimeBudgetEndsWithItsStopReason) {
  OptimizeOptions options = quick("pet");
  options.time_limit_s = 1e-9;
  OptimizeResult result = optimize(parse_graph(kDilatedConv), options);
  EXPECT_EQ(result.search.stop_reason, "time-limit");
  EXPECT_TRUE(result.check.passed);
}

TEST(Search, AlphaSearchIsTasosBaseline) {
  OptimizeOptions options = quick("taso");
  options.taso_search = "alpha";
  OptimizeResult result = optimize(parse_graph(kParallelConvs), options);
  EXPECT_EQ(result.search.algorithm, "alpha");
  EXPECT_EQ(result.search.stop_reason, "converged");
  EXPECT_LT(result.cost_optimized_us, result.cost_original_us);
  EXPECT_TRUE(result.check.passed);
}

TEST(Search, NeqOnlyUsesPartialMutantsAlone) {
  OptimizeResult result = optimize(parse_graph(kDilatedConv), quick("pet-neq-only"));
  for (const Transformation& step : result.transformations) EXPECT_EQ(step.evidence_kind, "partial+correction");
  EXPECT_TRUE(result.check.passed);
}

TEST(Search, ReportListsEvidenceCostsAndStopReason) {
  OptimizeResult result = optimize(parse_graph(kParallelConvs), quick("pet"));
  std::string json = report_json(result, false);
  for (const char* key : {"\"totals\"", "\"transformations\"", "\"evidence_kind\"", "\"cost_before_us\"",
                          "\"stop_reason\"", "\"differential_check\"", "\"max_abs_error\""})
    EXPECT_NE(json.find(key), std::string::npos) << key;
  EXPECT_EQ(json.find("\"seconds\""), std::string::npos) << "times make reports differ between runs";
  EXPECT_NE(report_json(result, true).find("\"seconds\""), std::string::npos);
  EXPECT_NE(report_table(result).find("estimated cost on h100"), std::string::npos);
}

}  // namespace
}  // namespace pet
