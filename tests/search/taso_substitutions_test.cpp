// TASO's named substitutions as the rule matcher applies them: one before -> after test per
// substitution on textual IR (each application proved at its shapes and equal on random inputs),
// and a test per guard that the rule does not fire when the guard fails.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "search/passes/finalize.h"
#include "search/rules/rule_matcher.h"
#include "tests/search/node_lines.h"
#include "verifier/differential.h"

namespace pet::search {
namespace {

using pet::testing::node_lines;

const std::vector<rules::LibraryRule>& library() {
  static const std::vector<rules::LibraryRule> kLibrary =
      rules::read_rule_library(std::string(PET_SOURCE_DIR) + "/mutant/rules");
  return kLibrary;
}

// The named library rule alone (both directions when it has two).
RuleSet only(const std::string& name) {
  std::vector<rules::LibraryRule> chosen;
  for (const rules::LibraryRule& rule : library())
    if (rule.name == name) chosen.push_back(rule);
  EXPECT_EQ(chosen.size(), 1u) << name << " is missing from the library";
  return RuleSet::from_library(chosen);
}

Graph parse_named(const std::string& body) { return parse_graph("graph \"g\" opset 13 {\n" + body + "}\n"); }

// The applications of `direction` (a rule name, " (reversed)" for right to left), each proved and
// numerically equal to the graph.
std::vector<RuleApplication> applied(const std::string& rule, const std::string& direction, const Graph& graph,
                                     MatchStats* stats = nullptr) {
  RuleSet rules = only(rule);
  std::vector<RuleApplication> result;
  for (RuleApplication& application : RuleMatcher(rules).apply_all(graph, stats)) {
    if (application.rule != direction) continue;
    EXPECT_EQ(application.proof.status, ProofStatus::Proved) << application.proof.reason;
    EXPECT_TRUE(differential(graph, application.result, 7).passed) << print_graph(application.result);
    result.push_back(std::move(application));
  }
  return result;
}

std::string conv_attrs(int pad, int stride) {
  std::string p = std::to_string(pad), s = std::to_string(stride);
  return "Conv[dilations=[1,1], group=1, pads=[" + p + "," + p + "," + p + "," + p + "], strides=[" + s + "," + s + "]]";
}

// ResNet's downsampling block: a 1x1 shortcut conv and a 3x3 conv read one input, both with a bias.
Graph shortcut_and_conv(int pad1, int stride1, int kernel3, int pad3, int stride3) {
  std::string k = std::to_string(kernel3);
  return parse_named("  input %x : f32[1,4,8,8]\n"
                     "  const %w : f32[6,4,1,1] = random(1)\n  const %b : f32[6] = random(2)\n"
                     "  const %v : f32[5,4," + k + "," + k + "] = random(3)\n  const %c : f32[5] = random(4)\n"
                     "  %short = " + conv_attrs(pad1, stride1) + "(%x, %w, %b)\n"
                     "  %main = " + conv_attrs(pad3, stride3) + "(%x, %v, %c)\n"
                     "  %rs = Relu(%short)\n  %rm = Relu(%main)\n  output %rs\n  output %rm\n");
}

const std::string kEnlarge = "merge-1x1-into-3x3-conv";

TEST(TasoSubstitution, EnlargeA1x1KernelAndMergeItWithThe3x3Sibling) {
  Graph before = shortcut_and_conv(0, 2, 3, 1, 2);
  std::vector<RuleApplication> after = applied(kEnlarge, kEnlarge, before);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(node_lines(after[0].result),
            "%main/p = Pad[mode=\"constant\", pads=[0,0,1,1,0,0,1,1], value=0](%w) : f32[6,4,3,3]\n"
            "%main/c = Concat[axis=0](%main/p, %v) : f32[11,4,3,3]\n"
            "%main/m_1 = " + conv_attrs(1, 2) + "(%x, %main/c, %main/m_bias) : f32[1,11,4,4]\n"
            "%short, %main = Split[axis=1, split=[6,5]](%main/m_1) : f32[1,6,4,4], f32[1,5,4,4]\n"
            "%rs = Relu(%short) : f32[1,6,4,4]\n%rm = Relu(%main) : f32[1,5,4,4]\noutput %rs\noutput %rm\n");
}

// Guard: one stride for both convs (the merged conv has one).
TEST(TasoSubstitution, EnlargeAndMergeNeedsOneStride) {
  MatchStats stats;
  EXPECT_TRUE(applied(kEnlarge, kEnlarge, shortcut_and_conv(0, 1, 3, 1, 2), &stats).empty());
  EXPECT_EQ(stats.structural, 0);
}

// Guard: the sibling's kernel is 3x3 (a 5x5 one would need a margin of 2 around the 1x1 kernel).
TEST(TasoSubstitution, EnlargeAndMergeNeedsA3x3Sibling) {
  MatchStats stats;
  EXPECT_TRUE(applied(kEnlarge, kEnlarge, shortcut_and_conv(0, 1, 5, 2, 1), &stats).empty());
  EXPECT_EQ(stats.structural, 2);  // either conv in the 3x3 role
  EXPECT_EQ(stats.shape_refused + stats.type_mismatch, 2);
}

// Guard: the 3x3 conv pads one more than the 1x1 (else the two outputs differ in size).
TEST(TasoSubstitution, EnlargeAndMergeNeedsPaddingOneApart) {
  MatchStats stats;
  EXPECT_TRUE(applied(kEnlarge, kEnlarge, shortcut_and_conv(1, 1, 3, 1, 1), &stats).empty());
  EXPECT_EQ(stats.applied, 0);
}

const std::string kEnlarge3d = "merge-1x1x1-into-3x3x3-conv";

std::string conv3d_attrs(int pad, int stride) {
  std::string p = std::to_string(pad), s = std::to_string(stride);
  return "Conv[dilations=[1,1,1], group=1, pads=[" + p + "," + p + "," + p + "," + p + "," + p + "," + p +
         "], strides=[" + s + "," + s + "," + s + "]]";
}

// ResNet3D's downsampling block: a 1x1x1 shortcut conv and a 3x3x3 conv of one clip, both with a bias.
Graph shortcut_and_conv3d(int stride1, int stride3) {
  return parse_named("  input %x : f32[1,4,4,6,6]\n"
                     "  const %w : f32[6,4,1,1,1] = random(1)\n  const %b : f32[6] = random(2)\n"
                     "  const %v : f32[5,4,3,3,3] = random(3)\n  const %c : f32[5] = random(4)\n"
                     "  %short = " + conv3d_attrs(0, stride1) + "(%x, %w, %b)\n"
                     "  %main = " + conv3d_attrs(1, stride3) + "(%x, %v, %c)\n"
                     "  output %short\n  output %main\n");
}

TEST(TasoSubstitution, EnlargeA1x1x1KernelAndMergeItWithThe3x3x3Sibling) {
  std::vector<RuleApplication> after = applied(kEnlarge3d, kEnlarge3d, shortcut_and_conv3d(2, 2));
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(node_lines(after[0].result),
            "%main/p = Pad[mode=\"constant\", pads=[0,0,1,1,1,0,0,1,1,1], value=0](%w) : f32[6,4,3,3,3]\n"
            "%main/c = Concat[axis=0](%main/p, %v) : f32[11,4,3,3,3]\n"
            "%main/m_1 = " + conv3d_attrs(1, 2) + "(%x, %main/c, %main/m_bias) : f32[1,11,2,3,3]\n"
            "%short, %main = Split[axis=1, split=[6,5]](%main/m_1) : f32[1,6,2,3,3], f32[1,5,2,3,3]\n"
            "output %short\noutput %main\n");
}

// Guard: one stride for both convs.
TEST(TasoSubstitution, EnlargeAndMerge3dNeedsOneStride) {
  MatchStats stats;
  EXPECT_TRUE(applied(kEnlarge3d, kEnlarge3d, shortcut_and_conv3d(1, 2), &stats).empty());
  EXPECT_EQ(stats.applied, 0);
}

const std::string kMergeConvs = "concat-0-conv-split-1-to-conv-conv-280728";

TEST(TasoSubstitution, MergeParallelConvsSharingAnInput) {
  Graph before = shortcut_and_conv(1, 1, 1, 1, 1);
  std::vector<RuleApplication> after = applied(kMergeConvs, kMergeConvs + " (reversed)", before);
  ASSERT_EQ(after.size(), 2u);  // either weight first
  EXPECT_EQ(node_lines(after[0].result),
            "%short/t0 = Concat[axis=0](%w, %v) : f32[11,4,1,1]\n"
            "%short/t1_1 = " + conv_attrs(1, 1) + "(%x, %short/t0, %short/t1_bias) : f32[1,11,10,10]\n"
            "%short, %main = Split[axis=1, split=[6,5]](%short/t1_1) : f32[1,6,10,10], f32[1,5,10,10]\n"
            "%rs = Relu(%short) : f32[1,6,10,10]\n%rm = Relu(%main) : f32[1,5,10,10]\noutput %rs\noutput %rm\n");
}

const std::string kMergeMatMuls = "concat-1-matmul-split-1-to-matmul-matmul-0d3f5b";

TEST(TasoSubstitution, MergeParallelMatMulsSharingAnInput) {
  Graph before = parse_named("  input %a : f32[8,16]\n  const %q : f32[16,4] = random(1)\n"
                             "  const %k : f32[16,4] = random(2)\n  %p = MatMul(%a, %q)\n  %r = MatMul(%a, %k)\n"
                             "  output %p\n  output %r\n");
  std::vector<RuleApplication> after = applied(kMergeMatMuls, kMergeMatMuls + " (reversed)", before);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(node_lines(after[0].result), "%p/t0 = Concat[axis=1](%k, %q) : f32[16,8]\n"
                                          "%p/t1 = MatMul(%a, %p/t0) : f32[8,8]\n"
                                          "%r, %p = Split[axis=1, split=[4,4]](%p/t1) : f32[8,4], f32[8,4]\n"
                                          "output %p\noutput %r\n");
}

// Guard: a merge must not make a matmul read its own result.
TEST(TasoSubstitution, MergeMatMulsRefusesWhenOneReadsTheOther) {
  Graph before = parse_named("  input %a : f32[4,4]\n  const %q : f32[4,4] = random(1)\n"
                             "  %p = MatMul(%a, %q)\n  %r = MatMul(%a, %p)\n  output %r\n");
  MatchStats stats;
  EXPECT_TRUE(applied(kMergeMatMuls, kMergeMatMuls + " (reversed)", before, &stats).empty());
  EXPECT_EQ(stats.cycle, stats.structural);
}

// A conv of one input with a bias, followed by `tail` reading %y.
Graph biased_conv(const std::string& extra_inputs, const std::string& tail) {
  return parse_named("  input %x : f32[1,4,6,6]\n" + extra_inputs +
                     "  const %w : f32[3,4,3,3] = random(1)\n  const %b : f32[3] = random(2)\n"
                     "  %y = " + conv_attrs(1, 1) + "(%x, %w, %b)\n" + tail);
}

const std::string kFuseScale = "fuse-scalar-mul-into-conv-with-bias";

TEST(TasoSubstitution, FuseAScalarMultiplicationIntoTheConvWeightAndBias) {
  Graph before = biased_conv("  input %s : f32[]\n", "  %o = Mul(%y, %s)\n  output %o\n");
  std::vector<RuleApplication> after = applied(kFuseScale, kFuseScale, before);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(node_lines(after[0].result), "%o/ws = Mul(%w, %s) : f32[3,4,3,3]\n"
                                          "%o/bs = Mul(%b/channel, %s) : f32[1,3,1,1]\n"
                                          "%o/c = " + conv_attrs(1, 1) + "(%x, %o/ws) : f32[1,3,6,6]\n"
                                          "%o = Add(%o/c, %o/bs) : f32[1,3,6,6]\noutput %o\n");
}

// Guard: the factor is a scalar; a per-channel factor is no scalar multiplication of the weight.
TEST(TasoSubstitution, FuseScaleNeedsAScalarFactor) {
  MatchStats stats;
  Graph before = biased_conv("  input %s : f32[1,3,1,1]\n", "  %o = Mul(%y, %s)\n  output %o\n");
  EXPECT_TRUE(applied(kFuseScale, kFuseScale, before, &stats).empty());
  EXPECT_EQ(stats.guard_refused, 1);
}

const std::string kFuseAdd = "fuse-channel-add-into-conv-bias";

TEST(TasoSubstitution, FuseAPerChannelAdditionIntoTheConvBias) {
  Graph before = biased_conv("", "  const %d : f32[1,3,1,1] = random(5)\n  %o = Add(%y, %d)\n  output %o\n");
  std::vector<RuleApplication> after = applied(kFuseAdd, kFuseAdd, before);
  ASSERT_EQ(after.size(), 1u);
  // The joined bias, Add(%b/channel, %d), is computed from constants: it goes into the conv's bias
  // as the rewrite leaves the bias-free view, so the search prices one conv.
  EXPECT_EQ(node_lines(after[0].result), "%o = " + conv_attrs(1, 1) + "(%x, %w, %o/c_bias) : f32[1,3,6,6]\noutput %o\n");
  Graph written = after[0].result;
  finalize(written);
  EXPECT_EQ(node_lines(written), "%o = " + conv_attrs(1, 1) + "(%x, %w, %o/c_bias) : f32[1,3,6,6]\noutput %o\n");
  EXPECT_TRUE(differential(before, written, 8).passed);
}

// Guard: the added tensor is per channel; a residual (a whole feature map) stays an addition.
TEST(TasoSubstitution, FuseAddNeedsAPerChannelAddend) {
  MatchStats stats;
  Graph before = biased_conv("  input %r : f32[1,3,6,6]\n", "  %o = Add(%y, %r)\n  output %o\n");
  EXPECT_TRUE(applied(kFuseAdd, kFuseAdd, before, &stats).empty());
  EXPECT_EQ(stats.guard_refused, 1);
}

const std::string kConvOverAdd = "conv-conv-add-to-add-conv-27e1f5";

// A conv is linear in its input: conv(a + r, w) = conv(a, w) + conv(r, w) for a and r of one shape.
TEST(TasoSubstitution, AConvOfASumIsTheSumOfTwoConvs) {
  Graph before = parse_named("  input %a : f32[1,4,6,6]\n  input %r : f32[1,4,6,6]\n"
                             "  const %w : f32[4,4,3,3] = random(1)\n  %s = Add(%a, %r)\n"
                             "  %o = " + conv_attrs(1, 1) + "(%s, %w)\n  output %o\n");
  std::vector<RuleApplication> after = applied(kConvOverAdd, kConvOverAdd + " (reversed)", before);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(node_lines(after[0].result), "%o/t0 = " + conv_attrs(1, 1) + "(%a, %w) : f32[1,4,6,6]\n"
                                          "%o/t1 = " + conv_attrs(1, 1) + "(%r, %w) : f32[1,4,6,6]\n"
                                          "%o = Add(%o/t0, %o/t1) : f32[1,4,6,6]\noutput %o\n");
}

// Guard: the sum's operands have one shape. EDSR's tail conv reads a biased conv's output, whose
// bias [1,C,1,1] is broadcast: conv(c + bias) is not conv(c) + conv(bias) near the borders (the
// instance proof refuted it with a counterexample before the guard refused the match).
TEST(TasoSubstitution, AConvOfASumNeedsOperandsOfOneShape) {
  MatchStats stats;
  Graph before = parse_named("  input %a : f32[1,4,6,6]\n  const %c : f32[1,4,1,1] = random(2)\n"
                             "  const %w : f32[4,4,3,3] = random(1)\n  %s = Add(%a, %c)\n"
                             "  %o = " + conv_attrs(1, 1) + "(%s, %w)\n  output %o\n");
  EXPECT_TRUE(applied(kConvOverAdd, kConvOverAdd + " (reversed)", before, &stats).empty());
  EXPECT_EQ(stats.guard_refused, 1);
}

const std::string kConcatThroughConv = "conv-conv-concat-1-to-concat-0-conv-353eec";

TEST(TasoSubstitution, MoveAConcatOfConvOutputsIntoTheWeights) {
  Graph before = parse_named("  input %x : f32[1,4,8,8]\n  const %w : f32[6,4,1,1] = random(1)\n"
                       "  const %v : f32[5,4,1,1] = random(3)\n  %a = " + conv_attrs(0, 1) + "(%x, %v)\n"
                       "  %b = " + conv_attrs(0, 1) + "(%x, %w)\n  %o = Concat[axis=1](%b, %a)\n  output %o\n");
  std::vector<RuleApplication> after = applied(kConcatThroughConv, kConcatThroughConv, before);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(node_lines(after[0].result), "%o/t0 = Concat[axis=0](%w, %v) : f32[11,4,1,1]\n"
                                          "%o = " + conv_attrs(0, 1) + "(%x, %o/t0) : f32[1,11,8,8]\noutput %o\n");
}

// Guard: the convs' outputs are concatenated on the channels; on the batch axis they are not.
TEST(TasoSubstitution, ConcatThroughConvNeedsTheChannelAxis) {
  Graph before = parse_named("  input %x : f32[1,4,8,8]\n  const %w : f32[6,4,1,1] = random(1)\n"
                             "  const %v : f32[6,4,1,1] = random(3)\n  %a = " + conv_attrs(0, 1) + "(%x, %v)\n"
                             "  %b = " + conv_attrs(0, 1) + "(%x, %w)\n  %o = Concat[axis=0](%b, %a)\n  output %o\n");
  MatchStats stats;
  EXPECT_TRUE(applied(kConcatThroughConv, kConcatThroughConv, before, &stats).empty());
  EXPECT_EQ(stats.structural, 0);
}

// A conv over concatenated weights, split on the channels: two convs (the split moves through).
Graph split_of_merged_conv(const std::string& sizes) {
  return parse_named("  input %x : f32[1,4,8,8]\n  const %w : f32[6,4,1,1] = random(1)\n"
                     "  const %v : f32[5,4,1,1] = random(3)\n  %c = Concat[axis=0](%w, %v)\n"
                     "  %m = " + conv_attrs(0, 1) + "(%x, %c)\n  %a, %b = Split[axis=1, split=[" + sizes + "]](%m)\n"
                     "  output %a\n  output %b\n");
}

TEST(TasoSubstitution, MoveASplitThroughAConvIntoItsWeights) {
  std::vector<RuleApplication> after = applied(kMergeConvs, kMergeConvs, split_of_merged_conv("6,5"));
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(node_lines(after[0].result), "%b = " + conv_attrs(0, 1) + "(%x, %v) : f32[1,5,8,8]\n"
                                          "%a = " + conv_attrs(0, 1) + "(%x, %w) : f32[1,6,8,8]\n"
                                          "output %a\noutput %b\n");
}

// Guard: the split cuts where the weights were joined; other sizes are no pair of convs.
TEST(TasoSubstitution, SplitThroughConvNeedsTheWeightsSeam) {
  MatchStats stats;
  EXPECT_TRUE(applied(kMergeConvs, kMergeConvs, split_of_merged_conv("3,8"), &stats).empty());
  EXPECT_EQ(stats.structural, 1);
  EXPECT_EQ(stats.type_mismatch, 1);
}

const std::string kAssociate = "matmul-matmul-to-matmul-matmul-59da75";

TEST(TasoSubstitution, MatMulAssociativity) {
  Graph before = parse_named("  input %a : f32[8,2]\n  input %b : f32[2,16]\n  input %d : f32[16,3]\n"
                             "  %bd = MatMul(%b, %d)\n  %o = MatMul(%a, %bd)\n  output %o\n");
  std::vector<RuleApplication> after = applied(kAssociate, kAssociate, before);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(node_lines(after[0].result),
            "%o/t0 = MatMul(%a, %b) : f32[8,16]\n%o = MatMul(%o/t0, %d) : f32[8,3]\noutput %o\n");
}

// Guard: the inner product is read only by the outer one (else it must stay and nothing is saved).
TEST(TasoSubstitution, MatMulAssociativityKeepsAProductReadElsewhere) {
  Graph before = parse_named("  input %a : f32[8,2]\n  input %b : f32[2,16]\n  input %d : f32[16,3]\n"
                             "  %bd = MatMul(%b, %d)\n  %o = MatMul(%a, %bd)\n  output %o\n  output %bd\n");
  MatchStats stats;
  EXPECT_TRUE(applied(kAssociate, kAssociate, before, &stats).empty());
  EXPECT_EQ(stats.outside_reader, stats.structural);
}

const std::string kTransposeOfProduct = "transpose-transpose-matmul-to-matmul-transpose-21d63a";

TEST(TasoSubstitution, AProductOfTransposesIsTheTransposedProduct) {
  Graph before = parse_named("  input %a : f32[6,5]\n  input %b : f32[5,7]\n"
                             "  %ta = Transpose[perm=[1,0]](%a)\n  %tb = Transpose[perm=[1,0]](%b)\n"
                             "  %o = MatMul(%tb, %ta)\n  output %o\n");
  std::vector<RuleApplication> after = applied(kTransposeOfProduct, kTransposeOfProduct, before);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(node_lines(after[0].result),
            "%o/t0 = MatMul(%a, %b) : f32[6,7]\n%o = Transpose[perm=[1,0]](%o/t0) : f32[7,6]\noutput %o\n");
}

// Guard: the transposes swap the two matrix axes; another permutation is no such transpose.
TEST(TasoSubstitution, TransposedProductNeedsMatrixTransposes) {
  Graph before = parse_named("  input %a : f32[2,6,5]\n  input %b : f32[2,5,7]\n"
                             "  %ta = Transpose[perm=[0,2,1]](%a)\n  %tb = Transpose[perm=[0,2,1]](%b)\n"
                             "  %o = MatMul(%tb, %ta)\n  output %o\n");
  MatchStats stats;
  EXPECT_TRUE(applied(kTransposeOfProduct, kTransposeOfProduct, before, &stats).empty());
  EXPECT_EQ(stats.structural, 0);
}

const std::string kMergeProjections = "merge-parallel-matmuls-sharing-input";

// A Transformer's projections: MatMuls of one [batch, tokens, features] activation by weight
// matrices, each followed by its bias.
Graph projections(const std::string& second_input) {
  return parse_named("  input %x : f32[1,8,6]\n  input %z : f32[1,8,6]\n"
                     "  const %wq : f32[6,4] = random(1)\n  const %bq : f32[4] = random(2)\n"
                     "  const %wk : f32[6,3] = random(3)\n  const %bk : f32[3] = random(4)\n"
                     "  %q = MatMul(%x, %wq)\n  %k = MatMul(" + second_input + ", %wk)\n"
                     "  %qb = Add(%bq, %q)\n  %kb = Add(%bk, %k)\n  output %qb\n  output %kb\n");
}

TEST(TasoSubstitution, MergeTwoProjectionsOfOneActivation) {
  Graph before = projections("%x");
  std::vector<RuleApplication> after = applied(kMergeProjections, kMergeProjections, before);
  ASSERT_EQ(after.size(), 2u) << "one merge per order of the two products";
  EXPECT_EQ(node_lines(after[0].result),
            "%q/c = Concat[axis=1](%wk, %wq) : f32[6,7]\n"
            "%q/m = MatMul(%x, %q/c) : f32[1,8,7]\n"
            "%q/p, %q/q = Split[axis=2, split=[3,4]](%q/m) : f32[1,8,3], f32[1,8,4]\n"
            "%qb = Add(%bq, %q/q) : f32[1,8,4]\n%kb = Add(%bk, %q/p) : f32[1,8,3]\noutput %qb\noutput %kb\n");
}

// Guard: one input for both products.
TEST(TasoSubstitution, MergeProjectionsNeedsOneInput) {
  EXPECT_TRUE(applied(kMergeProjections, kMergeProjections, projections("%z")).empty());
}

// Guard: weight matrices (2-D); products of two activations (attention scores) are not projections.
TEST(TasoSubstitution, MergeProjectionsNeedsMatrixWeights) {
  Graph before = parse_named("  input %x : f32[2,8,6]\n  input %a : f32[2,6,4]\n  input %b : f32[2,6,3]\n"
                             "  %p = MatMul(%x, %a)\n  %q = MatMul(%x, %b)\n  output %p\n  output %q\n");
  MatchStats stats;
  EXPECT_TRUE(applied(kMergeProjections, kMergeProjections, before, &stats).empty());
}

}  // namespace
}  // namespace pet::search
