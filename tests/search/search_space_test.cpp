// The search space's moves: every corrected partial mutant it offers computes the original,
// carries its boxes as evidence and prices its correction (under 5 % of the mutant here); biased
// convs get their bias back; repeated blocks take one mutant at every site in one move; a stage
// takes one family at every conv and keeps only its outer layouts after finalize.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/text_ir.h"
#include "search/passes/finalize.h"
#include "search/pipeline.h"
#include "search/search_space.h"
#include "tests/search/batched_conv.h"
#include "verifier/differential.h"

namespace pet::search {
namespace {

using testing::kBatchedConv;

// One mutation round on `graph` (top 4 kept), then the moves of `kinds` one step away.
struct OneStep {
  GenerationStats generation;
  SearchStats stats;  // of expanding
  std::vector<Program> moves;
};

OneStep one_step(const Graph& graph, const MoveKinds& kinds) {
  cost::CostModel cost(cost::load_device("h100"));
  GenerateOptions options;
  options.mutation_rounds = 1;
  options.top_k = 4;
  GeneratedMutants mutants = generate_mutants_stage(graph, cost, options);
  SearchSpace space(cost, nullptr, {}, mutants.subprograms);
  OneStep result;
  result.generation = mutants.stats;
  Program start = space.make_program(graph, {});
  result.moves = space.expand(start, kinds, result.stats, [](uint64_t) { return true; }, SearchBudget{});
  return result;
}

TEST(SearchSpace, EveryCorrectedPartialMoveComputesTheOriginal) {
  Graph graph = parse_graph(kBatchedConv);
  OneStep step_away = one_step(graph, {false, false, true});
  ASSERT_GT(step_away.generation.mutants_partial, 0) << "the generator finds the seam mutants of a batched conv";
  const std::vector<Program>& moves = step_away.moves;
  ASSERT_FALSE(moves.empty());
  for (const Program& move : moves) {
    const Transformation& step = move.history.back();
    SCOPED_TRACE(step.name);
    EXPECT_EQ(step.evidence_kind, EvidenceKind::partial_correction);
    EXPECT_NE(step.evidence.find("correction"), std::string::npos) << step.evidence;
    EXPECT_GT(step.correction_overhead, 0);
    EXPECT_LT(step.correction_overhead, 0.05) << "fused into the inverse layout, a seam costs little";
    DifferentialReport check = differential(graph, move.graph, 7);
    EXPECT_TRUE(check.passed) << check.max_abs_error();
  }
}

TEST(SearchSpace, BiasedConvsAreMutatedWithoutTheirBiasAndGetItBack) {
  Graph graph = parse_graph(kBatchedConv);
  OneStep step_away = one_step(graph, {false, true, false});
  EXPECT_GT(step_away.generation.mutants_full, 0);
  const std::vector<Program>& moves = step_away.moves;
  ASSERT_FALSE(moves.empty());
  for (const Program& move : moves) {
    EXPECT_TRUE(differential(graph, move.graph, 3).passed) << move.history.back().name;
    EXPECT_EQ(move.history.back().evidence_kind, EvidenceKind::random_test);
  }
}

TEST(SearchSpace, NeqOnlyModeBuildsOnlyCorrectedPartialMoves) {
  OptimizeOptions options;
  options.mode = Mode::pet_neq_only;
  options.target.spec = TargetSpec::parse("h100");
  options.search.beam = 2;
  options.generate.mutation_rounds = 1;
  OptimizeResult result = optimize(parse_graph(kBatchedConv), options);
  EXPECT_GT(result.search.candidates, 0) << "the seam mutants were offered as moves";
  EXPECT_EQ(result.search.rule_applications, 0);
  for (const Transformation& step : result.transformations) EXPECT_EQ(step.evidence_kind, EvidenceKind::partial_correction);
  EXPECT_TRUE(result.check.passed);
}

// Three equal convs between ReLUs: one subprogram key at three sites.
const char* kRepeatedConvs = R"(graph "repeated" opset 13 {
  input %x : f32[1,8,12,12]
  const %w1 : f32[8,8,3,3] = random(1)
  const %w2 : f32[8,8,3,3] = random(2)
  const %w3 : f32[8,8,3,3] = random(3)
  %c1 = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%x, %w1) : f32[1,8,12,12]
  %r1 = Relu(%c1) : f32[1,8,12,12]
  %c2 = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%r1, %w2) : f32[1,8,12,12]
  %r2 = Relu(%c2) : f32[1,8,12,12]
  %c3 = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%r2, %w3) : f32[1,8,12,12]
  output %c3
}
)";

TEST(SearchSpace, RepeatedBlocksTakeOneMutantAtEverySiteInOneMove) {
  Graph graph = parse_graph(kRepeatedConvs);
  std::vector<Program> moves = one_step(graph, {false, true, false}).moves;
  int repeated = 0;
  for (const Program& move : moves) {
    const Transformation& step = move.history.back();
    if (step.name.find(" (x3)") == std::string::npos) continue;
    ++repeated;
    SCOPED_TRACE(step.name);
    // before: c1, c2 and c3 each one site; after: all three replaced in the one move
    EXPECT_EQ(step.location, "c1; c2; c3");
    for (const Node& node : move.graph.nodes()) EXPECT_TRUE(node.name != "c1" && node.name != "c2" && node.name != "c3");
    EXPECT_TRUE(differential(graph, move.graph, 5).passed);
  }
  EXPECT_GT(repeated, 0) << "the dilated convs have full mutants, offered at all three sites at once";
}

// Three dilated convs of different widths between a Relu and a bias: three subprogram keys, one chain.
const char* kDilatedStage = R"(graph "stage" opset 13 {
  input %x : f32[1,8,12,12]
  const %w1 : f32[16,8,3,3] = random(1)
  const %w2 : f32[8,16,3,3] = random(2)
  const %w3 : f32[4,8,3,3] = random(3)
  const %b2 : f32[1,8,1,1] = random(4)
  %c1 = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%x, %w1) : f32[1,16,12,12]
  %r1 = Relu(%c1) : f32[1,16,12,12]
  %c2 = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%r1, %w2) : f32[1,8,12,12]
  %a2 = Add(%c2, %b2) : f32[1,8,12,12]
  %c3 = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%a2, %w3) : f32[1,4,12,12]
  output %c3
}
)";

// The moves that give one family to a whole stage of `sites` convs.
std::vector<const Program*> stage_moves_of(const std::vector<Program>& moves, int sites) {
  std::vector<const Program*> stages;
  std::string prefix = "stage of " + std::to_string(sites) + ": ";
  for (const Program& move : moves)
    if (move.history.back().name.rfind(prefix, 0) == 0) stages.push_back(&move);
  return stages;
}

int layouts_in(const Graph& graph) {
  return static_cast<int>(std::count_if(graph.nodes().begin(), graph.nodes().end(),
                                        [](const Node& node) { return node.def->traits.layout_only; }));
}

// Before: each conv's de-interleaving mutant pays a layout on its way in and out, so no single
// one saves anything. After: one move de-interleaves the whole stage; finalize cancels the
// layouts between the convs, leaving one at the entry and one at the exit.
TEST(SearchSpace, AStageTakesOneFamilyAtEveryConvAndKeepsOnlyItsOuterLayouts) {
  Graph graph = parse_graph(kDilatedStage);
  std::vector<Program> moves = one_step(graph, {false, true, false}).moves;
  int stages = 0;
  for (const Program* stage : stage_moves_of(moves, 3)) {
    const Program& move = *stage;
    const Transformation& step = move.history.back();
    SCOPED_TRACE(step.name);
    EXPECT_EQ(step.location, "c1; c2; c3");
    EXPECT_TRUE(differential(graph, move.graph, 5).passed);
    Graph finalized = move.graph;
    finalize(finalized);
    if (layouts_in(move.graph) < 6) continue;  // a family with a layout on one side of each conv only
    ++stages;
    // the weights' layouts fold into the weights; the activations' cancel between the convs
    EXPECT_EQ(layouts_in(finalized), 2) << "only the stage's entry and exit layouts stay:\n" << print_graph(finalized);
    EXPECT_TRUE(differential(graph, finalized, 6).passed);
  }
  EXPECT_GT(stages, 0) << "the dilated convs' de-interleaving family is offered along the whole stage";
}

TEST(SearchSpace, StageSizeBelowTwoOffersNoStageMoves) {
  cost::CostModel cost(cost::load_device("h100"));
  Graph graph = parse_graph(kDilatedStage);
  GenerateOptions options;
  options.mutation_rounds = 1;
  GeneratedMutants mutants = generate_mutants_stage(graph, cost, options);
  SearchSpaceOptions space_options;
  space_options.stage_sites = 1;
  SearchSpace space(cost, nullptr, space_options, mutants.subprograms);
  SearchStats stats;
  for (const Program& move : space.expand(space.make_program(graph, {}), {false, true, false}, stats,
                                          [](uint64_t) { return true; }, SearchBudget{}))
    EXPECT_EQ(move.history.back().name.find("stage of"), std::string::npos) << move.history.back().name;
}

// Two 3x3 convs between Relus on 4 images of 28x28: stacking pairs of images along H (or W) is
// wrong only on the seam rows, so each conv gets a correction.
const char* kSeamStage = R"(graph "seam_stage" opset 13 {
  input %x : f32[4,16,28,28]
  const %w1 : f32[16,16,3,3] = random(1)
  const %w2 : f32[16,16,3,3] = random(2)
  %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1) : f32[4,16,28,28]
  %r1 = Relu(%c1) : f32[4,16,28,28]
  %c2 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%r1, %w2) : f32[4,16,28,28]
  %r2 = Relu(%c2) : f32[4,16,28,28]
  output %r2
}
)";

int count_op(const Graph& graph, const std::string& op) {
  return static_cast<int>(std::count_if(graph.nodes().begin(), graph.nodes().end(),
                                        [&](const Node& node) { return node.op() == op; }));
}

// Before: each corrected conv ends in a LayoutOverwrite that returns to the batch layout, so the
// next conv stacks its input again. After finalize: the first conv's correction is written in the
// stacked layout, the second conv and its correction read it there, and only the stage's entry
// layout and its exit (the last correction, fused with the inverse layout) move data.
TEST(SearchSpace, APartialStageStaysInItsLayoutBetweenItsCorrectedConvs) {
  Graph graph = parse_graph(kSeamStage);
  std::vector<Program> moves = one_step(graph, {false, false, true}).moves;
  std::vector<const Program*> stages = stage_moves_of(moves, 2);
  for (const Program* move : stages) {
    const Transformation& step = move->history.back();
    SCOPED_TRACE(step.name);
    EXPECT_EQ(step.evidence_kind, EvidenceKind::partial_correction);
    Graph finalized = move->graph;
    finalize(finalized);
    EXPECT_EQ(count_op(finalized, "Layout"), 1) << "the stage's entry only:\n" << print_graph(finalized);
    EXPECT_EQ(count_op(finalized, "LayoutOverwrite"), 2) << "one correction in the stacked layout, one at the exit";
    EXPECT_TRUE(differential(graph, finalized, 8).passed);
  }
  EXPECT_FALSE(stages.empty()) << "the batch-stacking family is offered along the whole stage";
}

}  // namespace
}  // namespace pet::search
