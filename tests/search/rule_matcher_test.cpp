// The rule matcher on library rules: a graph before, the rewritten graph (or the refusal) after.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "core/onnx_import.h"
#include "core/structural_hash.h"
#include "core/text_ir.h"
#include "search/passes/cleanup.h"
#include "search/rules/compiled_rule.h"
#include "search/rules/rule_matcher.h"
#include "verifier/differential.h"
#include "tests/search/node_lines.h"

namespace pet::search {
namespace {

const std::string kRulesDir = std::string(PET_SOURCE_DIR) + "/mutant/rules";

const std::vector<rules::LibraryRule>& library() {
  static const std::vector<rules::LibraryRule> kLibrary = rules::read_rule_library(kRulesDir);
  return kLibrary;
}

// A rule set of the named library rules only (both directions), so a test sees exactly them.
RuleSet only(const std::vector<std::string>& names) {
  std::vector<rules::LibraryRule> chosen;
  for (const std::string& name : names)
    for (const rules::LibraryRule& rule : library())
      if (rule.name == name) chosen.push_back(rule);
  EXPECT_EQ(chosen.size(), names.size()) << "a rule named here is missing from the library";
  return RuleSet::from_library(chosen);
}

const RuleSet& full_library() {
  static const RuleSet kRules = RuleSet::from_library(library());
  return kRules;
}

Graph parse_named(const std::string& body) { return parse_graph("graph \"g\" opset 13 {\n" + body + "}\n"); }

using pet::testing::node_lines;

const std::string kMergeMatMuls = "concat-1-matmul-split-1-to-matmul-matmul-0d3f5b";
const std::string kTransposeTwice = "transpose-transpose-to-identity-9f6746";
const std::string kDoubledFactor = "add-mul-to-add-mul-157226";

TEST(RuleSet, LoadsBothDirectionsOfTheLibrary) {
  const RuleSet& rules = full_library();
  size_t directions = 0;
  for (const rules::LibraryRule& rule : library()) directions += rule.bidirectional ? 2 : 1;
  EXPECT_EQ(rules.size() + rules.skipped().size(), directions);
  // Only directions whose left side has no node (an identity rule read backwards) or is no
  // connected subgraph are left out.
  for (const std::string& why : rules.skipped())
    EXPECT_TRUE(why.find("no node") != std::string::npos || why.find("not connected") != std::string::npos) << why;
  for (size_t i = 1; i < rules.size(); ++i) EXPECT_LT(rules.rules()[i - 1]->name, rules.rules()[i]->name);
}

TEST(RuleMatcher, AppliesARuleAtLargerShapesAndProvesThatInstance) {
  // Proved at f32[2,3]; here at f32[64,128], so Z3 proves the instance again.
  Graph graph = parse_named("  input %x : f32[64,128]\n"
                            "  %a = Transpose[perm=[1,0]](%x)\n"
                            "  %b = Transpose[perm=[1,0]](%a)\n"
                            "  %o = Relu(%b)\n"
                            "  output %o\n");
  RuleSet rules = only({kTransposeTwice});
  RuleMatcher matcher(rules);
  MatchStats stats;
  std::vector<RuleApplication> applications = matcher.apply_all(graph, &stats);
  ASSERT_EQ(applications.size(), 1u);
  EXPECT_EQ(applications[0].rule, kTransposeTwice);
  EXPECT_EQ(applications[0].location, "a, b");
  EXPECT_EQ(node_lines(applications[0].result), "%o = Relu(%x) : f32[64,128]\noutput %o\n");
  EXPECT_EQ(applications[0].proof.status, ProofStatus::Proved) << applications[0].proof.reason;
  bool at_new_shape = false;
  for (const std::string& axiom : applications[0].proof.axioms_available)
    at_new_shape = at_new_shape || axiom.find("64,128") != std::string::npos;
  EXPECT_TRUE(at_new_shape) << "the proof's axiom instances are not at the matched shape";
  EXPECT_EQ(matcher.proofs_run(), 1);
  matcher.apply_all(graph);
  EXPECT_EQ(matcher.proofs_run(), 1) << "the instance proof is cached";
}

TEST(RuleMatcher, AGraphOutputProducedByTheMatchKeepsItsName) {
  Graph graph = parse_named("  input %x : f32[4,6]\n"
                            "  %a = Transpose[perm=[1,0]](%x)\n"
                            "  %b = Transpose[perm=[1,0]](%a)\n"
                            "  output %b\n");
  RuleSet rules = only({kTransposeTwice});
  std::vector<RuleApplication> applications = RuleMatcher(rules).apply_all(graph);
  ASSERT_EQ(applications.size(), 1u);
  EXPECT_EQ(node_lines(applications[0].result), "%b = Identity(%x) : f32[4,6]\noutput %b\n");
}

TEST(RuleMatcher, RefusesWhenARemovedValueIsReadOutsideTheMatch) {
  Graph graph = parse_named("  input %x : f32[4,6]\n"
                            "  %a = Transpose[perm=[1,0]](%x)\n"
                            "  %b = Transpose[perm=[1,0]](%a)\n"
                            "  %o = Relu(%b)\n"
                            "  %p = Relu(%a)\n"
                            "  output %o\n"
                            "  output %p\n");
  RuleSet rules = only({kTransposeTwice});
  MatchStats stats;
  EXPECT_TRUE(RuleMatcher(rules).apply_all(graph, &stats).empty());
  EXPECT_EQ(stats.structural, 1);
  EXPECT_EQ(stats.outside_reader, 1);
}

TEST(RuleMatcher, MergesTwoMatMulsOnASharedInput) {
  // Read right to left, the rule merges MatMul(a, c) and MatMul(a, b) into one over Concat(c, b).
  Graph graph = parse_named("  input %a : f32[8,3]\n"
                            "  input %b : f32[3,4]\n"
                            "  input %c : f32[3,4]\n"
                            "  %p = MatMul(%a, %c)\n"
                            "  %q = MatMul(%a, %b)\n"
                            "  %o = Sub(%p, %q)\n"
                            "  output %o\n");
  RuleSet rules = only({kMergeMatMuls});
  MatchStats stats;
  std::vector<RuleApplication> applications = RuleMatcher(rules).apply_all(graph, &stats);
  // Both assignments of the two MatMuls to the rule's two: Concat(c, b) and Concat(b, c).
  ASSERT_EQ(applications.size(), 2u) << stats.structural;
  EXPECT_EQ(applications[0].rule, kMergeMatMuls + " (reversed)");
  EXPECT_EQ(applications[0].location, "p, q");
  EXPECT_EQ(applications[1].location, "p, q");
  EXPECT_EQ(node_lines(applications[0].result),
            "%p/t0 = Concat[axis=1](%b, %c) : f32[3,8]\n"
            "%p/t1 = MatMul(%a, %p/t0) : f32[8,8]\n"
            "%p/t2, %p/t3 = Split[axis=1, split=[4,4]](%p/t1) : f32[8,4], f32[8,4]\n"
            "%o = Sub(%p/t3, %p/t2) : f32[8,4]\n"
            "output %o\n");
  EXPECT_EQ(node_lines(applications[1].result),
            "%q/t0 = Concat[axis=1](%c, %b) : f32[3,8]\n"
            "%q/t1 = MatMul(%a, %q/t0) : f32[8,8]\n"
            "%q/t2, %q/t3 = Split[axis=1, split=[4,4]](%q/t1) : f32[8,4], f32[8,4]\n"
            "%o = Sub(%q/t2, %q/t3) : f32[8,4]\n"
            "output %o\n");
  for (const RuleApplication& application : applications)
    EXPECT_TRUE(differential(graph, application.result, 1).passed);
}

TEST(RuleMatcher, SplitSizesFollowTheMatchedTypes) {
  // The library's Split cuts [4,4]; at [3,6] weights the pieces the match must produce are 6 wide.
  Graph graph = parse_named("  input %a : f32[8,3]\n"
                            "  input %b : f32[3,6]\n"
                            "  input %c : f32[3,6]\n"
                            "  %p = MatMul(%a, %c)\n"
                            "  %q = MatMul(%a, %b)\n"
                            "  %o = Sub(%p, %q)\n"
                            "  output %o\n");
  RuleSet rules = only({kMergeMatMuls});
  std::vector<RuleApplication> applications = RuleMatcher(rules).apply_all(graph);
  ASSERT_EQ(applications.size(), 2u);
  EXPECT_EQ(node_lines(applications[0].result),
            "%p/t0 = Concat[axis=1](%b, %c) : f32[3,12]\n"
            "%p/t1 = MatMul(%a, %p/t0) : f32[8,12]\n"
            "%p/t2, %p/t3 = Split[axis=1, split=[6,6]](%p/t1) : f32[8,6], f32[8,6]\n"
            "%o = Sub(%p/t3, %p/t2) : f32[8,6]\n"
            "output %o\n");
  for (const RuleApplication& application : applications) {
    EXPECT_EQ(application.proof.status, ProofStatus::Proved);
    EXPECT_TRUE(differential(graph, application.result, 1).passed);
  }
}

TEST(RuleMatcher, MergesTheParallelConvsOfAnInceptionBlock) {
  Graph graph = parse_named("  input %x : f32[1,16,14,14]\n"
                            "  const %w1 : f32[16,16,3,3] = random(1)\n"
                            "  const %w2 : f32[16,16,3,3] = random(2)\n"
                            "  %a = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1)\n"
                            "  %b = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w2)\n"
                            "  %ra = Relu(%a)\n"
                            "  %rb = Relu(%b)\n"
                            "  output %ra\n"
                            "  output %rb\n");
  RuleSet rules = only({"concat-0-conv-split-1-to-conv-conv-280728"});
  std::vector<RuleApplication> applications = RuleMatcher(rules).apply_all(graph);
  ASSERT_EQ(applications.size(), 2u);
  EXPECT_EQ(node_lines(applications[0].result).substr(0, 49), "%a/t0 = Concat[axis=0](%w1, %w2) : f32[32,16,3,3]");
  for (const RuleApplication& application : applications) {
    EXPECT_EQ(application.proof.status, ProofStatus::Proved) << application.proof.reason;
    EXPECT_TRUE(differential(graph, application.result, 3).passed);
  }
}

// The same block as imported models have it, each conv with a bias after BatchNorm folding: the
// rule matches the bias-free convs and the merged conv carries the joined bias.
TEST(RuleMatcher, MergesParallelConvsThatCarryABias) {
  Graph graph = parse_named("  input %x : f32[1,16,14,14]\n"
                            "  const %w1 : f32[16,16,3,3] = random(1)\n"
                            "  const %w2 : f32[16,16,3,3] = random(2)\n"
                            "  const %b1 : f32[16] = random(3)\n"
                            "  const %b2 : f32[16] = random(4)\n"
                            "  %a = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1, %b1)\n"
                            "  %b = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w2, %b2)\n"
                            "  %ra = Relu(%a)\n"
                            "  %rb = Relu(%b)\n"
                            "  output %ra\n"
                            "  output %rb\n");
  RuleSet rules = only({"concat-0-conv-split-1-to-conv-conv-280728"});
  std::vector<RuleApplication> applications = RuleMatcher(rules).apply_all(graph);
  ASSERT_EQ(applications.size(), 2u);
  EXPECT_EQ(node_lines(applications[0].result),
            "%a/t0 = Concat[axis=0](%w1, %w2) : f32[32,16,3,3]\n"
            "%a/t1_1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %a/t0, %a/t1_bias) : f32[1,32,14,14]\n"
            "%a, %b = Split[axis=1, split=[16,16]](%a/t1_1) : f32[1,16,14,14], f32[1,16,14,14]\n"
            "%ra = Relu(%a) : f32[1,16,14,14]\n"
            "%rb = Relu(%b) : f32[1,16,14,14]\n"
            "output %ra\noutput %rb\n");
  for (const RuleApplication& application : applications) {
    EXPECT_EQ(application.proof.status, ProofStatus::Proved) << application.proof.reason;
    EXPECT_TRUE(differential(graph, application.result, 3).passed);
  }
}

// (conv(conv(x, v) + b1, w) + b2) * s is no conv of conv(x, v * s): the rule that moves a scalar
// into the first conv's weight fires on bias-free convs only.
TEST(RuleMatcher, DoesNotMoveAScalarThroughAConvBias) {
  const std::string rule = "conv-conv-scalar-mul-to-scalar-mul-conv-conv-0cc4d0";
  auto chain = [](const std::string& b1, const std::string& b2) {
    return parse_named("  input %x : f32[1,4,6,6]\n  input %s : f32[]\n"
                       "  const %v : f32[4,4,3,3] = random(1)\n  const %w : f32[4,4,3,3] = random(2)\n"
                       "  const %b1 : f32[4] = random(3)\n  const %b2 : f32[4] = random(4)\n"
                       "  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %v" + b1 + ")\n"
                       "  %d = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%c, %w" + b2 + ")\n"
                       "  %m = Mul(%d, %s)\n  output %m\n");
  };
  RuleSet rules = only({rule});
  EXPECT_TRUE(RuleMatcher(rules).apply_all(chain(", %b1", ", %b2")).empty());
  EXPECT_TRUE(RuleMatcher(rules).apply_all(chain("", ", %b2")).empty());
  EXPECT_TRUE(RuleMatcher(rules).apply_all(chain(", %b1", "")).empty());
  std::vector<RuleApplication> plain = RuleMatcher(rules).apply_all(chain("", ""));
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].rule, rule);
}

// Two convs sharing an input, with the attributes of the test; the library's merge rule was
// proved at 3x3 kernels, stride 1, pads 1.
Graph parallel_convs(const std::string& attrs_a, const std::string& attrs_b, const std::string& kernel = "1,1") {
  return parse_named("  input %x : f32[1,8,9,9]\n"
                     "  const %w1 : f32[4,8," + kernel + "] = random(1)\n"
                     "  const %w2 : f32[6,8," + kernel + "] = random(2)\n"
                     "  const %b1 : f32[4] = random(3)\n"
                     "  const %b2 : f32[6] = random(4)\n"
                     "  %a = Conv[" + attrs_a + "](%x, %w1, %b1)\n"
                     "  %b = Conv[" + attrs_b + "](%x, %w2, %b2)\n"
                     "  output %a\n  output %b\n");
}

const std::string kMergeConvs = "concat-0-conv-split-1-to-conv-conv-280728 (reversed)";
const std::string kStride2 = "dilations=[1,1], group=1, pads=[0,0,0,0], strides=[2,2]";

TEST(RuleMatcher, MergesParallelConvsAtAnyKernelStrideAndPadding) {
  Graph graph = parallel_convs(kStride2, kStride2);
  RuleSet rules = only({"concat-0-conv-split-1-to-conv-conv-280728"});
  std::vector<RuleApplication> applications = RuleMatcher(rules).apply_all(graph);
  ASSERT_EQ(applications.size(), 2u);  // the weights concatenated in either order
  EXPECT_EQ(applications[0].rule, kMergeConvs);
  EXPECT_EQ(node_lines(applications[0].result),
            "%a/t0 = Concat[axis=0](%w1, %w2) : f32[10,8,1,1]\n"
            "%a/t1_1 = Conv[" + kStride2 + "](%x, %a/t0, %a/t1_bias) : f32[1,10,5,5]\n"
            "%a, %b = Split[axis=1, split=[4,6]](%a/t1_1) : f32[1,4,5,5], f32[1,6,5,5]\n"
            "output %a\noutput %b\n");
  for (const RuleApplication& application : applications) {
    EXPECT_EQ(application.proof.status, ProofStatus::Proved) << application.proof.reason;
    EXPECT_TRUE(differential(graph, application.result, 6).passed);
  }
}

// Guard: the rule's two convs share their attributes, so convs with other strides do not merge.
TEST(RuleMatcher, DoesNotMergeConvsWithDifferentAttributes) {
  RuleSet rules = only({"concat-0-conv-split-1-to-conv-conv-280728"});
  MatchStats stats;
  Graph graph = parallel_convs(kStride2, "dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]");
  EXPECT_TRUE(RuleMatcher(rules).apply_all(graph, &stats).empty());
  EXPECT_EQ(stats.structural, 0);
}

// Guard: the group is no variable; a rule about dense convs never binds a grouped one.
TEST(RuleMatcher, DoesNotBindAGroupedConvToARuleAboutDenseConvs) {
  RuleSet rules = only({"concat-0-conv-split-1-to-conv-conv-280728"});
  const std::string grouped = "dilations=[1,1], group=2, pads=[0,0,0,0], strides=[1,1]";
  Graph graph = parse_named("  input %x : f32[1,8,9,9]\n"
                            "  const %w1 : f32[4,4,1,1] = random(1)\n  const %w2 : f32[6,4,1,1] = random(2)\n"
                            "  %a = Conv[" + grouped + "](%x, %w1)\n  %b = Conv[" + grouped + "](%x, %w2)\n"
                            "  output %a\n  output %b\n");
  MatchStats stats;
  RuleMatcher matcher(rules);
  EXPECT_TRUE(matcher.apply_all(graph, &stats).empty());
  EXPECT_EQ(stats.structural, 0);
  EXPECT_EQ(matcher.proofs_run(), 0);
}

// Guard: a conv with a fused activation computes Relu(conv): no variable binds it.
TEST(RuleMatcher, DoesNotBindAConvWithAFusedActivation) {
  RuleSet rules = only({"concat-0-conv-split-1-to-conv-conv-280728"});
  const std::string relu = "activation=\"relu\", " + kStride2;
  MatchStats stats;
  EXPECT_TRUE(RuleMatcher(rules).apply_all(parallel_convs(relu, relu), &stats).empty());
  EXPECT_EQ(stats.structural, 0);
}

TEST(RuleMatcher, RefusesWhenTheRightSideDoesNotFitTheMatchedShapes) {
  // Right to left the rule turns Relu(b) into Transpose(Relu(Transpose(b))) with perm [1,0]:
  // fine at rank 2, a shape-rule failure at rank 4.
  RuleSet rules = only({"transpose-relu-transpose-to-relu-708f80"});
  MatchStats stats;
  Graph rank4 = parse_named("  input %x : f32[1,2,3,4]\n  %r = Relu(%x)\n  output %r\n");
  EXPECT_TRUE(RuleMatcher(rules).apply_all(rank4, &stats).empty());
  EXPECT_EQ(stats.structural, 1);
  EXPECT_EQ(stats.shape_refused, 1);
  Graph rank2 = parse_named("  input %x : f32[6,9]\n  %r = Relu(%x)\n  output %r\n");
  std::vector<RuleApplication> applications = RuleMatcher(rules).apply_all(rank2, &stats);
  ASSERT_EQ(applications.size(), 1u);
  EXPECT_EQ(node_lines(applications[0].result),
            "%r/t0 = Transpose[perm=[1,0]](%x) : f32[9,6]\n"
            "%r/t1 = Relu(%r/t0) : f32[9,6]\n"
            "%r = Transpose[perm=[1,0]](%r/t1) : f32[6,9]\n"
            "output %r\n");
}

TEST(RuleMatcher, RefusesAMatchWhoseInputDependsOnTheMatch) {
  // %b is computed from %p: merging %p and %q into one node would read its own output.
  Graph graph = parse_named("  input %a : f32[3,3]\n"
                            "  input %c : f32[3,4]\n"
                            "  %p = MatMul(%a, %c)\n"
                            "  %b = Neg(%p)\n"
                            "  %q = MatMul(%a, %b)\n"
                            "  output %q\n");
  RuleSet rules = only({kMergeMatMuls});
  MatchStats stats;
  EXPECT_TRUE(RuleMatcher(rules).apply_all(graph, &stats).empty());
  EXPECT_GE(stats.structural, 1);
  EXPECT_EQ(stats.cycle, stats.structural);
}

TEST(RuleMatcher, OneVariableBindsOneValue) {
  // The left side is Mul(y, Add(x, x)): Add(%p, %q) of two different values is no match.
  const std::string rest = "  %m = Mul(%r, %s)\n  output %m\n";
  const std::string inputs = "  input %p : f32[5,7]\n  input %q : f32[5,7]\n  input %r : f32[5,7]\n";
  RuleSet rules = only({kDoubledFactor});
  MatchStats stats;
  Graph different = parse_named(inputs + "  %s = Add(%p, %q)\n" + rest);
  EXPECT_TRUE(RuleMatcher(rules).apply_all(different, &stats).empty());
  EXPECT_EQ(stats.structural, 0);
  Graph same = parse_named(inputs + "  %s = Add(%p, %p)\n" + rest);
  std::vector<RuleApplication> applications = RuleMatcher(rules).apply_all(same, &stats);
  // The rule is its own mirror image, so both directions match and rewrite alike.
  ASSERT_EQ(applications.size(), 2u);
  EXPECT_EQ(applications[0].rule, kDoubledFactor);
  EXPECT_EQ(applications[1].rule, kDoubledFactor + " (reversed)");
  for (const RuleApplication& application : applications) {
    EXPECT_EQ(node_lines(application.result), "%m/t0 = Add(%r, %r) : f32[5,7]\n%m = Mul(%p, %m/t0) : f32[5,7]\noutput %m\n");
    EXPECT_TRUE(differential(same, application.result, 2).passed);
  }
}

// ResNet-18's six failed proofs were this rule at its residual Adds: a per-channel bias [1,C,1,1]
// added to one branch. The rule holds there; the prover lacked Add's axioms for broadcast operands.
const std::string kReassociateAdds = "add-add-to-add-add-167579";
const std::string kResidualWithBias = "  input %x : f32[1,8,5,5]\n  input %y : f32[1,8,5,5]\n"
                                      "  input %b : f32[1,8,1,1]\n  %s = Add(%y, %b)\n  %o = Add(%x, %s)\n"
                                      "  output %o\n";

TEST(RuleMatcher, ReassociatesAResidualAddWithAPerChannelBias) {
  Graph graph = parse_named(kResidualWithBias);
  RuleSet rules = only({kReassociateAdds});
  RuleMatcher matcher(rules);
  std::vector<RuleApplication> applications = matcher.apply_all(graph);
  ASSERT_GE(applications.size(), 1u);
  EXPECT_EQ(applications[0].rule, kReassociateAdds);
  EXPECT_EQ(node_lines(applications[0].result),
            "%o/t0 = Add(%x, %y) : f32[1,8,5,5]\n%o = Add(%b, %o/t0) : f32[1,8,5,5]\noutput %o\n");
  EXPECT_TRUE(differential(graph, applications[0].result, 5).passed);
  EXPECT_EQ(matcher.proofs_failed(), 0);
  EXPECT_TRUE(matcher.failed_instances().empty());
  std::map<std::string, int64_t> counts = matcher.applications_by_rule();
  EXPECT_EQ(counts[kReassociateAdds], 1);
  EXPECT_EQ(counts[kReassociateAdds + " (reversed)"], static_cast<int64_t>(applications.size()) - 1);
}

TEST(RuleMatcher, NamesTheRuleAndShapesOfAnInstanceThatDidNotProve) {
  Graph graph = parse_named(kResidualWithBias);
  RuleSet rules = only({kReassociateAdds});
  std::vector<axioms::AxiomSchema> none;
  MatchOptions options;
  options.prove.axioms = &none;
  RuleMatcher matcher(rules, options);
  MatchStats stats;
  EXPECT_TRUE(matcher.apply_all(graph, &stats).empty());
  // Both directions match here (the rule reads the same inputs on each side).
  ASSERT_EQ(matcher.failed_instances().size(), 2u);
  EXPECT_EQ(stats.not_proved, 2);
  EXPECT_EQ(matcher.failed_instances()[1].rule, kReassociateAdds + " (reversed)");
  FailedInstance failed = matcher.failed_instances()[0];
  EXPECT_EQ(failed.rule, kReassociateAdds);
  EXPECT_EQ(failed.input_types, "f32[1,8,5,5], f32[1,8,5,5], f32[1,8,1,1]");
  EXPECT_EQ(failed.status, ProofStatus::Unknown);
  EXPECT_EQ(failed.describe().rfind(kReassociateAdds + " at f32[1,8,5,5], f32[1,8,5,5], f32[1,8,1,1]: unknown (", 0), 0u)
      << failed.describe();
}

Graph transposed_twice(const std::string& shape) {
  return parse_named("  input %x : f32" + shape + "\n  %a = Transpose[perm=[1,0]](%x)\n  %b = Transpose[perm=[1,0]](%a)\n  %o = Relu(%b)\n  output %o\n");
}

TEST(RuleMatcher, ALaterMatcherRecallsAnInstanceProofInsteadOfRunningZ3Again) {
  Graph graph = transposed_twice("[37,41]");  // a shape no other test proves
  RuleSet rules = only({kTransposeTwice});
  RuleMatcher first(rules);
  std::vector<RuleApplication> proved = first.apply_all(graph);
  ASSERT_EQ(proved.size(), 1u);
  size_t remembered = remembered_instance_proofs();
  RuleMatcher second(rules);
  std::vector<RuleApplication> recalled = second.apply_all(graph);
  // Before: the first matcher ran Z3. After: the second gets the same answer, its clock included
  // (the proof was not run again), and the process remembers nothing more.
  ASSERT_EQ(recalled.size(), 1u);
  EXPECT_EQ(recalled[0].proof.status, ProofStatus::Proved);
  EXPECT_EQ(recalled[0].proof.seconds, proved[0].proof.seconds);
  EXPECT_EQ(recalled[0].proof.axioms_used, proved[0].proof.axioms_used);
  EXPECT_EQ(remembered_instance_proofs(), remembered);
  EXPECT_EQ(second.proofs_run(), first.proofs_run());  // each matcher counts the instances it needed
}

TEST(RuleMatcher, ARecalledProofIsFoundByTheInstanceNotByTheRuleName) {
  Graph graph = transposed_twice("[43,47]");
  RuleSet rules = only({kTransposeTwice});
  ASSERT_EQ(RuleMatcher(rules).apply_all(graph).size(), 1u);
  // A wrong rule under the same name, marked proved: x^T^T = -x. Its instance is another goal, so
  // the earlier proof is not recalled for it and the numeric check refutes it.
  rules::LibraryRule wrong;
  for (const rules::LibraryRule& rule : library())
    if (rule.name == kTransposeTwice) wrong = rule;
  wrong.rhs = "graph \"rhs\" opset 13 {\n  input %x : f32[2,3]\n  %n = Neg(%x) : f32[2,3]\n  output %n\n}\n";
  wrong.bidirectional = false;
  RuleSet wrong_rules = RuleSet::from_library({wrong});
  RuleMatcher matcher(wrong_rules);
  EXPECT_TRUE(matcher.apply_all(graph).empty());
  ASSERT_EQ(matcher.failed_instances().size(), 1u);
  EXPECT_EQ(matcher.failed_instances()[0].status, ProofStatus::Refuted);
}

TEST(RuleMatcher, AnInstanceIsBuiltOnceHoweverManyProgramsMatchIt) {
  Graph graph = transposed_twice("[53,59]");
  RuleSet rules = only({kTransposeTwice});
  RuleMatcher matcher(rules);
  std::vector<RuleApplication> first = matcher.apply_all(graph);
  ASSERT_EQ(first.size(), 1u);
  int64_t built = matcher.instances_built();
  EXPECT_GE(built, 1);
  // Before: one instance built for the match. After a second program with the same match (the
  // search expands many): the same application, and no instance built again.
  std::vector<RuleApplication> second = matcher.apply_all(graph);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(structural_hash(second[0].result), structural_hash(first[0].result));
  EXPECT_EQ(second[0].location, first[0].location);
  EXPECT_EQ(matcher.instances_built(), built);
  // At other shapes the instance is another one.
  ASSERT_EQ(matcher.apply_all(transposed_twice("[59,53]")).size(), 1u);
  EXPECT_EQ(matcher.instances_built(), built + 1);
}

// A small network with the ops the library speaks: convs, concat, split, transposes, adds.
Graph small_network() {
  return parse_named("  input %x : f32[1,4,8,8]\n"
                     "  const %w1 : f32[4,4,3,3] = random(1)\n"
                     "  const %w2 : f32[4,4,3,3] = random(2)\n"
                     "  const %w3 : f32[4,8,1,1] = random(3)\n"
                     "  %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1)\n"
                     "  %c2 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w2)\n"
                     "  %r1 = Relu(%c1)\n"
                     "  %r2 = Relu(%c2)\n"
                     "  %k = Concat[axis=1](%r1, %r2)\n"
                     "  %c3 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%k, %w3)\n"
                     "  %s = Add(%c3, %x)\n"
                     "  %t = Add(%s, %s)\n"
                     "  %u = Mul(%t, %x)\n"
                     "  output %u\n");
}

TEST(RuleMatcher, SameApplicationsInTheSameOrderEveryTime) {
  Graph graph = small_network();
  auto run = [&] {
    RuleMatcher matcher(full_library());
    std::vector<std::string> seen;
    for (const RuleApplication& a : matcher.apply_all(graph))
      seen.push_back(a.rule + " @ " + a.location + " #" + std::to_string(structural_hash(a.result)));
    return seen;
  };
  std::vector<std::string> first = run();
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, run());
  for (const std::string& line : first) std::cout << "  " << line << "\n";
}

// One line per application (rule, location, result), then the counts and the failed instances.
std::vector<std::string> everything_matched(const Graph& graph, MatchOptions options) {
  RuleMatcher matcher(full_library(), options);
  MatchStats stats;
  std::vector<std::string> lines;
  for (const RuleApplication& a : matcher.apply_all(graph, &stats))
    lines.push_back(a.rule + " @ " + a.location + " #" + std::to_string(structural_hash(a.result)));
  lines.push_back(fmt::format("structural {} outside {} cycle {} types {} guard {} shapes {} mismatch {} not proved {} "
                              "applied {}; proofs {}",
                              stats.structural, stats.outside_reader, stats.cycle, stats.element_type_refused,
                              stats.guard_refused, stats.shape_refused, stats.type_mismatch, stats.not_proved,
                              stats.applied, matcher.proofs_run()));
  for (const FailedInstance& failed : matcher.failed_instances()) lines.push_back(failed.describe());
  return lines;
}

TEST(RuleMatcher, OneThreadAndFourMatchTheSameInTheSameOrder) {
  Graph graph = small_network();
  MatchOptions one, four;
  one.threads = 1;
  four.threads = 4;
  std::vector<std::string> before = everything_matched(graph, one);
  EXPECT_GT(before.size(), 2u);
  EXPECT_EQ(everything_matched(graph, four), before);
}

TEST(RuleMatcher, AtTheCapTheApplicationsAreTheFirstOnesAndOnlyTheirMatchesAreCounted) {
  Graph graph = small_network();
  MatchOptions all, capped;
  all.threads = capped.threads = 3;
  capped.max_applications = 2;
  MatchStats all_stats, capped_stats;
  std::vector<RuleApplication> every = RuleMatcher(full_library(), all).apply_all(graph, &all_stats);
  ASSERT_GT(every.size(), 2u);
  std::vector<RuleApplication> first = RuleMatcher(full_library(), capped).apply_all(graph, &capped_stats);
  ASSERT_EQ(first.size(), 2u);
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].rule + " @ " + first[i].location, every[i].rule + " @ " + every[i].location);
    EXPECT_EQ(structural_hash(first[i].result), structural_hash(every[i].result));
  }
  // Before: every match of the graph counted. After the cap: matching stops at the second application.
  EXPECT_EQ(capped_stats.applied, 2);
  EXPECT_LT(capped_stats.structural, all_stats.structural);
}

TEST(RuleMatcher, EveryApplicationOnASmallNetworkIsValidAndEqual) {
  Graph graph = small_network();
  RuleMatcher matcher(full_library());
  std::vector<RuleApplication> applications = matcher.apply_all(graph);
  ASSERT_FALSE(applications.empty());
  for (const RuleApplication& application : applications) {
    application.result.validate();
    EXPECT_EQ(application.proof.status, ProofStatus::Proved);
    DifferentialReport report = differential(graph, application.result, 9);
    EXPECT_TRUE(report.passed) << application.rule << " at " << application.location << ": max abs error "
                               << report.max_abs_error() << "\n" << print_graph(application.result);
  }
}

TEST(RuleMatcher, OnlyNonGrowingLeavesOutRulesThatAddComputeOps) {
  RuleSet rules = only({kMergeMatMuls});
  MatchOptions options;
  options.only_non_growing = true;
  Graph graph = parse_named("  input %a : f32[8,3]\n  input %b : f32[3,4]\n  input %c : f32[3,4]\n"
                            "  %t0 = Concat[axis=1](%c, %b)\n  %t1 = MatMul(%a, %t0)\n"
                            "  %t2, %t3 = Split[axis=1, split=[4,4]](%t1)\n  %o = Sub(%t2, %t3)\n  output %o\n");
  MatchStats stats;
  EXPECT_TRUE(RuleMatcher(rules, options).apply_all(graph, &stats).empty());
  EXPECT_EQ(stats.skipped_growing, 1);
  EXPECT_EQ(RuleMatcher(rules).apply_all(graph).size(), 1u);  // the splitting direction, allowed by default
}

std::filesystem::path model_path(const std::string& model) {
  const char* dir = std::getenv("PET_MODELS_DIR");
  std::filesystem::path root = dir ? dir : std::string(PET_SOURCE_DIR) + "/build/models";
  return root / model / "model.onnx";
}

// apply_all on an exported model after cleanup: timing printed (not asserted), every result
// valid, the first few numerically equal to the original.
void check_model(const std::string& model, size_t differential_checks) {
  std::filesystem::path path = model_path(model);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing: run models/export_models.py";
  Graph graph = import_onnx(path.string());
  cleanup(graph);
  const RuleSet& rules = full_library();
  RuleMatcher matcher(rules);
  auto start = std::chrono::steady_clock::now();
  MatchStats stats;
  std::vector<RuleApplication> applications = matcher.apply_all(graph, &stats);
  double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  start = std::chrono::steady_clock::now();
  std::vector<RuleApplication> again = matcher.apply_all(graph);
  double cached = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << model << ": " << graph.nodes().size() << " nodes, " << rules.size() << " directed rules, "
            << applications.size() << " applications; apply_all " << first * 1e3 << " ms (" << matcher.proofs_run()
            << " proofs, " << matcher.proofs_failed() << " not proved), again with proofs cached " << cached * 1e3
            << " ms; structural matches " << stats.structural << ", outside reader " << stats.outside_reader
            << ", cycle " << stats.cycle << ", shapes " << stats.shape_refused << ", types " << stats.type_mismatch
            << ", not proved " << stats.not_proved << "\n";
  ASSERT_EQ(applications.size(), again.size());
  for (size_t i = 0; i < applications.size(); ++i) {
    EXPECT_EQ(applications[i].rule, again[i].rule);
    EXPECT_EQ(structural_hash(applications[i].result), structural_hash(again[i].result));
    EXPECT_EQ(applications[i].proof.status, ProofStatus::Proved);
    applications[i].result.validate();
    EXPECT_EQ(applications[i].result.outputs().size(), graph.outputs().size());
    for (size_t k = 0; k < graph.outputs().size(); ++k)
      EXPECT_EQ(applications[i].result.value(applications[i].result.outputs()[k]).name,
                graph.value(graph.outputs()[k]).name);
  }
  for (size_t i = 0; i < std::min(applications.size(), differential_checks); ++i) {
    DifferentialReport report = differential(graph, applications[i].result, 4);
    EXPECT_TRUE(report.passed) << applications[i].rule << " at " << applications[i].location << ": max abs error "
                               << report.max_abs_error();
  }
}

// ResNet-18 has no Concat, Split, Transpose or MatMul and its convs carry a bias after BN
// folding, so the library's rules find left sides whose right sides do not fit (growing rules).
TEST(RuleMatcherOnModels, ResNet18) { check_model("resnet18_b1", 3); }
// Inception's branches end in Relu before a Concat: one Relu after the Concat is a rewrite.
TEST(RuleMatcherOnModels, InceptionV3) { check_model("inception_v3_299_b1", 2); }
TEST(RuleMatcherOnModels, Bert) { check_model("bert_s128_b1", 2); }

}  // namespace
}  // namespace pet::search
