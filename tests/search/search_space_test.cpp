// The search space's partial moves: every corrected partial mutant it offers computes the
// original, carries its boxes as evidence, and prices its correction under 1 % of the mutant.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "search/pipeline.h"
#include "search/search_space.h"
#include "verifier/differential.h"

namespace pet::search {
namespace {

// A batch-2 3x3 conv with bias at 56x56 (ResNet's first stage): stacking the images along H
// (N2H) is wrong only on the seam rows, which the corrections recompute.
const char* kBatchedConv = R"(graph "batched" opset 13 {
  input %x : f32[2,64,56,56]
  const %w : f32[64,64,3,3] = random(1)
  const %b : f32[64] = random(2)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b) : f32[2,64,56,56]
  %r = Relu(%c) : f32[2,64,56,56]
  output %r
}
)";

TEST(SearchSpace, EveryCorrectedPartialMoveComputesTheOriginal) {
  Graph graph = parse_graph(kBatchedConv);
  cost::CostModel cost(cost::load_device("h100"));
  SearchSpaceOptions options;
  options.mutation_rounds = 1;
  options.top_k = 4;
  SearchSpace space(cost, nullptr, options);
  SearchStats stats;
  space.prepare(graph, stats, SearchBudget{});
  ASSERT_GT(stats.mutants_partial, 0) << "the generator finds the seam mutants of a batched conv";
  Program start = space.make_program(graph, {});
  std::vector<Program> moves = space.expand(start, {false, false, true}, stats, [](uint64_t) { return true; }, SearchBudget{});
  ASSERT_FALSE(moves.empty());
  for (const Program& move : moves) {
    const Transformation& step = move.history.back();
    SCOPED_TRACE(step.name);
    EXPECT_EQ(step.evidence_kind, "partial+correction");
    EXPECT_NE(step.evidence.find("correction"), std::string::npos) << step.evidence;
    EXPECT_GT(step.correction_overhead, 0);
    EXPECT_LT(step.correction_overhead, 0.05) << "fused into the inverse layout, a seam costs little";
    DifferentialReport check = differential(graph, move.graph, 7);
    EXPECT_TRUE(check.passed) << check.max_abs_error();
  }
}

TEST(SearchSpace, BiasedConvsAreMutatedWithoutTheirBiasAndGetItBack) {
  Graph graph = parse_graph(kBatchedConv);
  cost::CostModel cost(cost::load_device("h100"));
  SearchSpaceOptions options;
  options.mutation_rounds = 1;
  SearchSpace space(cost, nullptr, options);
  SearchStats stats;
  space.prepare(graph, stats, SearchBudget{});
  EXPECT_GT(stats.mutants_full, 0);
  Program start = space.make_program(graph, {});
  std::vector<Program> moves = space.expand(start, {false, true, false}, stats, [](uint64_t) { return true; }, SearchBudget{});
  ASSERT_FALSE(moves.empty());
  for (const Program& move : moves) {
    EXPECT_TRUE(differential(graph, move.graph, 3).passed) << move.history.back().name;
    EXPECT_EQ(move.history.back().evidence_kind, "random-test");
  }
}

TEST(SearchSpace, NeqOnlyModeBuildsOnlyCorrectedPartialMoves) {
  OptimizeOptions options;
  options.mode = "pet-neq-only";
  options.beam = 2;
  options.mutation_rounds = 1;
  OptimizeResult result = optimize(parse_graph(kBatchedConv), options);
  EXPECT_GT(result.search.candidates, 0) << "the seam mutants were offered as moves";
  EXPECT_EQ(result.search.rule_applications, 0);
  for (const Transformation& step : result.transformations) EXPECT_EQ(step.evidence_kind, "partial+correction");
  EXPECT_TRUE(result.check.passed);
}

}  // namespace
}  // namespace pet::search
