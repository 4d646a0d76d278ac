// Partition, parallel groups and splice: a graph before, the regions (or the spliced graph) after.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/text_ir.h"
#include "mutant/generator.h"
#include "search/generate/partition.h"
#include "verifier/differential.h"
#include "verifier/examine.h"
#include "tests/search/node_lines.h"

namespace pet::search {
namespace {

// "location: inputs -> outputs" and the standalone program, one region after another.
std::string describe(const Graph& parent, const std::vector<Subprogram>& regions) {
  std::string text;
  for (const Subprogram& sub : regions) {
    text += to_string(sub.kind) + " [" + sub.location + "]:";
    for (ValueId id : sub.inputs) text += " %" + parent.value(id).name;
    text += " ->";
    for (ValueId id : sub.outputs) text += " %" + parent.value(id).name;
    text += "\n";
  }
  return text;
}

using pet::testing::node_lines;

Graph parse_named(const std::string& body) { return parse_graph("graph \"g\" opset 13 {\n" + body + "}\n"); }

const std::string kConv = "Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]]";

// conv -> relu -> conv -> add(residual) -> relu
Graph conv_relu_conv_add() {
  return parse_named("  input %x : f32[1,2,6,6]\n"
                     "  const %w1 : f32[2,2,3,3] = random(1)\n"
                     "  const %b1 : f32[2] = [0.5,-0.5]\n"
                     "  const %w2 : f32[2,2,3,3] = random(2)\n"
                     "  %c1 = " + kConv + "(%x, %w1, %b1)\n"
                     "  %r = Relu(%c1)\n"
                     "  %c2 = " + kConv + "(%r, %w2)\n"
                     "  %s = Add(%c2, %x)\n"
                     "  %o = Relu(%s)\n"
                     "  output %o\n");
}

TEST(Partition, CutsAtReluAndTakesTheResidualAdd) {
  Graph graph = conv_relu_conv_add();
  std::vector<Subprogram> regions = partition(graph);
  EXPECT_EQ(describe(graph, regions),
            "linear [c1]: %x %w1 %b1 -> %c1\n"
            "linear [c2, s]: %r %w2 %x -> %s\n");
  EXPECT_EQ(print_graph(regions[1].program),
            "graph \"linear\" opset 13 {\n"
            "  input %r : f32[1,2,6,6]\n"
            "  input %w2 : f32[2,2,3,3]\n"
            "  input %x : f32[1,2,6,6]\n"
            "  %c2 = " + kConv + "(%r, %w2) : f32[1,2,6,6]\n"
            "  %s = Add(%c2, %x) : f32[1,2,6,6]\n"
            "  output %s\n"
            "}\n");
}

TEST(Partition, RegionsAreExaminableByTheVerifier) {
  Graph graph = conv_relu_conv_add();
  for (const Subprogram& sub : partition(graph)) {
    Verdict verdict = examine(sub.program, sub.program);
    EXPECT_EQ(verdict.kind, VerdictKind::Full) << sub.location << ": " << verdict.reason;
  }
}

TEST(Partition, StopsAtAValueThatOtherNodesAlsoRead) {
  // %c2 feeds the Add and a Relu: the Add cannot join (the conv's output must stay visible), and
  // the Pad's output is read by two convs, so neither takes it.
  Graph graph = parse_named("  input %x : f32[1,2,6,6]\n"
                            "  input %y : f32[1,2,8,8]\n"
                            "  const %w1 : f32[2,2,3,3] = random(1)\n"
                            "  const %w2 : f32[2,2,3,3] = random(2)\n"
                            "  %p = Pad[mode=\"constant\", pads=[0,0,1,1,0,0,1,1], value=0](%x)\n"
                            "  %c1 = " + kConv + "(%p, %w1)\n"
                            "  %c2 = " + kConv + "(%p, %w2)\n"
                            "  %s = Add(%c2, %y)\n"
                            "  %r = Relu(%c2)\n"
                            "  %q = Pad[mode=\"constant\", pads=[0,0,1,1,0,0,1,1], value=0](%y)\n"
                            "  %c3 = " + kConv + "(%q, %w1)\n"
                            "  output %c1\n"
                            "  output %s\n"
                            "  output %r\n"
                            "  output %c3\n");
  EXPECT_EQ(describe(graph, partition(graph)),
            "linear [c1]: %p %w1 -> %c1\n"
            "linear [c2]: %p %w2 -> %c2\n"
            "linear [q, c3]: %y %w1 -> %c3\n");
}

TEST(Partition, RespectsMaxOpsAndNonZeroPadding) {
  // A Pad with a non-zero fill is affine, not linear: it stays outside.
  Graph graph = parse_named("  input %x : f32[1,2,6,6]\n"
                            "  const %w : f32[2,2,3,3] = random(1)\n"
                            "  %p = Pad[mode=\"constant\", pads=[0,0,1,1,0,0,1,1], value=1](%x)\n"
                            "  %c = " + kConv + "(%p, %w)\n"
                            "  %a = Add(%c, %c)\n"
                            "  %n = Neg(%a)\n"
                            "  output %n\n");
  EXPECT_EQ(describe(graph, partition(graph)), "linear [c, a, n]: %p %w -> %n\n");
  PartitionOptions two;
  two.max_ops = 2;
  EXPECT_EQ(describe(graph, partition(graph, two)), "linear [c, a]: %p %w -> %a\n");
}

TEST(ParallelGroups, InceptionBranchesOnOneInput) {
  Graph graph = parse_named("  input %x : f32[1,4,5,5]\n"
                            "  const %w1 : f32[2,4,1,1] = random(1)\n"
                            "  const %w2 : f32[3,4,1,1] = random(2)\n"
                            "  const %w3 : f32[2,4,3,3] = random(3)\n"
                            "  const %w4 : f32[2,2,3,3] = random(4)\n"
                            "  %a = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w1)\n"
                            "  %b = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w2)\n"
                            "  %c = " + kConv + "(%x, %w3)\n"
                            "  %d = " + kConv + "(%a, %w4)\n"
                            "  %m = MaxPool[ceil_mode=0, dilations=[1,1], kernel_shape=[3,3], pads=[1,1,1,1], strides=[1,1]](%x)\n"
                            "  %o = Concat[axis=1](%b, %c, %d, %m)\n"
                            "  output %o\n");
  std::vector<Subprogram> groups = parallel_groups(graph);
  // %d reads %a, so it is on a path from %a and cannot join; MaxPool is no compute op.
  EXPECT_EQ(describe(graph, groups), "group [a, b, c]: %x %w1 %w2 %w3 -> %a %b %c\n");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].program.outputs().size(), 3u);
  PartitionOptions two;
  two.max_group = 2;
  EXPECT_EQ(describe(graph, parallel_groups(graph, two)), "group [a, b]: %x %w1 %w2 -> %a %b\n");
}

TEST(ParallelGroups, QueryKeyValueMatMulsOfAnAttentionLayer) {
  Graph graph = parse_named("  input %h : f32[8,16]\n"
                            "  const %wq : f32[16,16] = random(1)\n"
                            "  const %wk : f32[16,16] = random(2)\n"
                            "  const %wv : f32[16,16] = random(3)\n"
                            "  %q = MatMul(%h, %wq)\n"
                            "  %k = MatMul(%h, %wk)\n"
                            "  %v = MatMul(%h, %wv)\n"
                            "  %kt = Transpose[perm=[1,0]](%k)\n"
                            "  %s = MatMul(%q, %kt)\n"
                            "  %p = Softmax[axis=-1](%s)\n"
                            "  %o = MatMul(%p, %v)\n"
                            "  output %o\n");
  EXPECT_EQ(describe(graph, parallel_groups(graph)), "group [q, k, v]: %h %wq %wk %wv -> %q %k %v\n");
}

TEST(ParallelGroups, EqualTypesWithoutACommonInput) {
  Graph graph = parse_named("  input %x : f32[4,8]\n"
                            "  input %y : f32[4,8]\n"
                            "  const %w : f32[8,8] = random(1)\n"
                            "  const %u : f32[8,8] = random(2)\n"
                            "  %a = MatMul(%x, %w)\n"
                            "  %b = MatMul(%y, %u)\n"
                            "  %c = MatMul(%a, %u)\n"
                            "  %o = Add(%b, %c)\n"
                            "  output %o\n");
  // %a and %b have equal input types; %c has them too but reads %a.
  EXPECT_EQ(describe(graph, parallel_groups(graph)), "group [a, b]: %x %w %y %u -> %a %b\n");
}

TEST(Splice, MergedConvGroupKeepsValuesAndOutputNames) {
  Graph graph = parse_named("  input %x : f32[1,4,5,5]\n"
                            "  const %w1 : f32[2,4,3,3] = random(1)\n"
                            "  const %w2 : f32[3,4,3,3] = random(2)\n"
                            "  %a = " + kConv + "(%x, %w1)\n"
                            "  %b = " + kConv + "(%x, %w2)\n"
                            "  %r = Relu(%b)\n"
                            "  output %a\n"
                            "  output %r\n");
  std::vector<Subprogram> groups = parallel_groups(graph);
  ASSERT_EQ(groups.size(), 1u);
  Graph merged = parse_graph("graph \"m\" opset 13 {\n"
                             "  input %x : f32[1,4,5,5]\n"
                             "  input %w1 : f32[2,4,3,3]\n"
                             "  input %w2 : f32[3,4,3,3]\n"
                             "  %w = Concat[axis=0](%w1, %w2)\n"
                             "  %y = " + kConv + "(%x, %w)\n"
                             "  %a, %b = Split[axis=1, split=[2,3]](%y)\n"
                             "  output %a\n"
                             "  output %b\n"
                             "}\n");
  ASSERT_EQ(examine(groups[0].program, merged).kind, VerdictKind::Full);
  Graph after = splice(graph, groups[0], merged, "m/");
  EXPECT_EQ(node_lines(after),
            "%m/w = Concat[axis=0](%w1, %w2) : f32[5,4,3,3]\n"
            "%m/y = " + kConv + "(%x, %m/w) : f32[1,5,5,5]\n"
            "%a, %m/b = Split[axis=1, split=[2,3]](%m/y) : f32[1,2,5,5], f32[1,3,5,5]\n"
            "%r = Relu(%m/b) : f32[1,3,5,5]\n"
            "output %a\n"
            "output %r\n");
  DifferentialReport report = differential(graph, after, 11);
  EXPECT_TRUE(report.passed) << "max abs error " << report.max_abs_error();
}

TEST(Splice, AGeneratedMutantOfARegionComputesTheSameValues) {
  // Batch 2 and a tall image give the generator room (batch stacking, height splits).
  Graph graph = parse_named("  input %x : f32[2,4,32,8]\n"
                            "  const %w : f32[4,4,3,3] = random(5)\n"
                            "  %c = " + kConv + "(%x, %w)\n"
                            "  %o = Relu(%c)\n"
                            "  output %o\n");
  std::vector<Subprogram> regions = partition(graph);
  ASSERT_EQ(regions.size(), 1u);
  mutant::GeneratorOptions options;
  options.equivalence = mutant::Equivalence::FullOnly;
  mutant::Generation generation = mutant::generate_mutants(regions[0].program, options);
  ASSERT_FALSE(generation.mutants.empty()) << generation.stats.summary();
  for (size_t i = 0; i < std::min<size_t>(generation.mutants.size(), 5); ++i) {
    Graph after = splice(graph, regions[0], generation.mutants[i].program, "mut/");
    ASSERT_EQ(after.value(after.outputs()[0]).name, "o");
    DifferentialReport report = differential(graph, after, 5);
    EXPECT_TRUE(report.passed) << generation.mutants[i].family << ": max abs error " << report.max_abs_error() << "\n"
                               << print_graph(after);
  }
}

TEST(Splice, ARegionThatIsAGraphOutputKeepsTheOutputName) {
  // The replacement ends in a value of its own: it takes the exported name %s back.
  Graph graph = parse_named("  input %x : f32[1,2,4,4]\n"
                            "  const %w : f32[2,2,3,3] = random(3)\n"
                            "  %c = " + kConv + "(%x, %w)\n"
                            "  %s = Add(%c, %x)\n"
                            "  output %s\n");
  std::vector<Subprogram> regions = partition(graph);
  ASSERT_EQ(regions.size(), 1u);
  Graph swapped = parse_graph("graph \"m\" opset 13 {\n"
                              "  input %x_in : f32[1,2,4,4]\n"
                              "  input %w : f32[2,2,3,3]\n"
                              "  %c = " + kConv + "(%x_in, %w)\n"
                              "  %s = Add(%x_in, %c)\n"
                              "  output %s\n"
                              "}\n");
  Graph after = splice(graph, regions[0], swapped, "new/");
  ASSERT_EQ(after.outputs().size(), 1u);
  EXPECT_EQ(after.value(after.outputs()[0]).name, "s");
  EXPECT_EQ(after.node(after.value(after.outputs()[0]).producer).op(), "Add");
  EXPECT_TRUE(differential(graph, after, 3).passed);
}

TEST(SpliceAll, ReplacesEveryConvOfAChainInOnePass) {
  // Two equal convs, the second reading the first: its replacement must read the first's replacement.
  Graph graph = parse_named("  input %x : f32[1,2,4,4]\n"
                            "  const %w1 : f32[2,2,3,3] = random(1)\n"
                            "  const %w2 : f32[2,2,3,3] = random(2)\n"
                            "  %a = " + kConv + "(%x, %w1)\n"
                            "  %r = Relu(%a)\n"
                            "  %b = " + kConv + "(%r, %w2)\n"
                            "  output %b\n");
  std::vector<Subprogram> regions = partition(graph);
  ASSERT_EQ(regions.size(), 2u);
  Graph transposed = parse_graph("graph \"t\" opset 13 {\n"
                                 "  input %x_in : f32[1,2,4,4]\n"
                                 "  input %w : f32[2,2,3,3]\n"
                                 "  %xt = Transpose[perm=[0,1,3,2]](%x_in)\n"
                                 "  %wt = Transpose[perm=[0,1,3,2]](%w)\n"
                                 "  %yt = " + kConv + "(%xt, %wt)\n"
                                 "  %y = Transpose[perm=[0,1,3,2]](%yt)\n"
                                 "  output %y\n"
                                 "}\n");
  Graph after = splice_all(graph, {&regions[0], &regions[1]}, transposed, {"p/", "q/"});
  EXPECT_EQ(node_lines(after),
            "%p/xt = Transpose[perm=[0,1,3,2]](%x) : f32[1,2,4,4]\n"
            "%p/wt = Transpose[perm=[0,1,3,2]](%w1) : f32[2,2,3,3]\n"
            "%p/yt = " + kConv + "(%p/xt, %p/wt) : f32[1,2,4,4]\n"
            "%p/y = Transpose[perm=[0,1,3,2]](%p/yt) : f32[1,2,4,4]\n"
            "%r = Relu(%p/y) : f32[1,2,4,4]\n"
            "%q/xt = Transpose[perm=[0,1,3,2]](%r) : f32[1,2,4,4]\n"
            "%q/wt = Transpose[perm=[0,1,3,2]](%w2) : f32[2,2,3,3]\n"
            "%q/yt = " + kConv + "(%q/xt, %q/wt) : f32[1,2,4,4]\n"
            "%b = Transpose[perm=[0,1,3,2]](%q/yt) : f32[1,2,4,4]\n"
            "output %b\n");
  EXPECT_TRUE(differential(graph, after, 7).passed);
}

// The sites of each stage window by location, one window per line.
std::string windows_text(const std::vector<Subprogram>& regions, const std::vector<std::vector<size_t>>& windows) {
  std::string text;
  for (const std::vector<size_t>& window : windows) {
    for (size_t k = 0; k < window.size(); ++k) text += (k ? " " : "") + regions[window[k]].location;
    text += "\n";
  }
  return text;
}

// c1 -> Relu -> c2 -> Mul by a constant -> Relu -> c3, and c4 reading the input apart.
Graph conv_chain() {
  return parse_named("  input %x : f32[1,2,6,6]\n"
                     "  const %w1 : f32[2,2,3,3] = random(1)\n"
                     "  const %w2 : f32[2,2,3,3] = random(2)\n"
                     "  const %w3 : f32[2,2,3,3] = random(3)\n"
                     "  const %s : f32[1,2,1,1] = [2,3]\n"
                     "  %c1 = " + kConv + "(%x, %w1)\n"
                     "  %r1 = Relu(%c1)\n"
                     "  %c2 = " + kConv + "(%r1, %w2)\n"
                     "  %m2 = Mul(%c2, %s)\n"
                     "  %r2 = Relu(%m2)\n"
                     "  %c3 = " + kConv + "(%r2, %w3)\n"
                     "  %c4 = " + kConv + "(%x, %w3)\n"
                     "  %o = Add(%c3, %c4)\n"
                     "  output %o\n");
}

TEST(StageWindows, AChainOfConvsJoinedByUnaryElementwiseOps) {
  Graph graph = conv_chain();
  std::vector<Subprogram> regions = partition(graph, {.max_compute_ops = 1, .max_ops = 1, .max_group = 4});
  EXPECT_EQ(windows_text(regions, stage_windows(graph, regions, 4)), "c1 c2\nc1 c2 c3\nc2 c3\n");
  EXPECT_EQ(windows_text(regions, stage_windows(graph, regions, 2)), "c1 c2\nc2 c3\n");
  EXPECT_EQ(windows_text(regions, stage_windows(graph, regions, 1)), "");
}

TEST(StageWindows, AValueReadTwiceOrAResidualAddEndsTheChain) {
  // before: c1's Relu also feeds the output, and c2 reaches c3 through an Add of two activations
  Graph graph = parse_named("  input %x : f32[1,2,6,6]\n"
                            "  const %w1 : f32[2,2,3,3] = random(1)\n"
                            "  const %w2 : f32[2,2,3,3] = random(2)\n"
                            "  const %w3 : f32[2,2,3,3] = random(3)\n"
                            "  %c1 = " + kConv + "(%x, %w1)\n"
                            "  %r1 = Relu(%c1)\n"
                            "  %c2 = " + kConv + "(%r1, %w2)\n"
                            "  %s = Add(%c2, %r1)\n"
                            "  %c3 = " + kConv + "(%s, %w3)\n"
                            "  output %c3\n");
  std::vector<Subprogram> regions = partition(graph, {.max_compute_ops = 1, .max_ops = 1, .max_group = 4});
  EXPECT_EQ(windows_text(regions, stage_windows(graph, regions, 4)), "");
}

TEST(StageWindows, TheLongestWindowsAreThoseNoOtherHolds) {
  Graph graph = conv_chain();
  std::vector<Subprogram> regions = partition(graph, {.max_compute_ops = 1, .max_ops = 1, .max_group = 4});
  EXPECT_EQ(windows_text(regions, longest_stage_windows(graph, regions, 4)), "c1 c2 c3\n");
  EXPECT_EQ(windows_text(regions, longest_stage_windows(graph, regions, 2)), "c1 c2\nc2 c3\n");
}

// Before: c1 -> Relu -> c2 -> Mul -> Relu -> c3 inside a graph where c4 and an Add follow. After:
// the window c2 c3 alone, reading r1 as its input, its weights and the scale as constants.
TEST(StageProgram, AWindowStandsAloneWithItsWeightsAndTheOpsBetweenItsConvs) {
  Graph graph = conv_chain();
  std::vector<Subprogram> regions = partition(graph, {.max_compute_ops = 1, .max_ops = 1, .max_group = 4});
  Graph stage = stage_program(graph, regions, stage_windows(graph, regions, 2).at(1));
  ASSERT_EQ(stage.inputs().size(), 1u);
  EXPECT_EQ(stage.value(stage.inputs()[0]).name, "r1");
  for (const char* weight : {"w2", "w3", "s"}) EXPECT_TRUE(stage.is_constant(*stage.find_value(weight))) << weight;
  EXPECT_EQ(node_lines(stage), "%c2 = " + kConv + "(%r1, %w2) : f32[1,2,6,6]\n"
                               "%m2 = Mul(%c2, %s) : f32[1,2,6,6]\n"
                               "%r2 = Relu(%m2) : f32[1,2,6,6]\n"
                               "%c3 = " + kConv + "(%r2, %w3) : f32[1,2,6,6]\n"
                               "output %c3\n");
}

TEST(SpliceAll, EachSiteTakesItsOwnReplacement) {
  Graph graph = conv_chain();
  std::vector<Subprogram> regions = partition(graph, {.max_compute_ops = 1, .max_ops = 1, .max_group = 4});
  ASSERT_GE(regions.size(), 2u);
  Graph negated = parse_graph("graph \"n\" opset 13 {\n"
                              "  input %x_in : f32[1,2,6,6]\n"
                              "  input %w : f32[2,2,3,3]\n"
                              "  %wn = Neg(%w)\n"
                              "  %yn = " + kConv + "(%x_in, %wn)\n"
                              "  %y = Neg(%yn)\n"
                              "  output %y\n"
                              "}\n");
  Graph after = splice_all(graph, {&regions[0], &regions[1]}, {&negated, &regions[1].program}, {"p/", "q/"});
  EXPECT_NE(node_lines(after).find("%p/wn = Neg(%w1)"), std::string::npos) << node_lines(after);
  EXPECT_EQ(node_lines(after).find("%q/wn"), std::string::npos) << node_lines(after);
  EXPECT_TRUE(differential(graph, after, 7).passed);
}

TEST(SpliceAll, RefusesTwoSitesThatShareANode) {
  Graph graph = conv_relu_conv_add();
  std::vector<Subprogram> regions = partition(graph);
  ASSERT_FALSE(regions.empty());
  EXPECT_THROW(splice_all(graph, {&regions[0], &regions[0]}, regions[0].program, {"p/", "q/"}), InternalError);
}

}  // namespace
}  // namespace pet::search
