// The Z3 prover on example rules: true 2-3-op rules are proved fast, wrong ones never are.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/text_ir.h"
#include "verifier/z3/example_rules.h"
#include "verifier/z3/prover.h"

namespace pet {
namespace {

ProofResult prove_rule(const ExampleRule& rule, ProveOptions options = {}) {
  return prove(parse_graph(rule.lhs), parse_graph(rule.rhs), options);
}

std::string describe(const ProofResult& result) {
  std::string text = std::string(proof_status_name(result.status)) + " in " + std::to_string(result.seconds) +
                     " s: " + result.reason + "\n  used:";
  for (const std::string& label : result.axioms_used) text += "\n    " + label;
  return text + "\n  available: " + std::to_string(result.axioms_available.size());
}

class TrueRule : public testing::TestWithParam<std::string> {};

TEST_P(TrueRule, IsProvedInUnderOneSecond) {
  ProofResult result = prove_rule(example_rule(GetParam()));
  EXPECT_EQ(result.status, ProofStatus::Proved) << describe(result);
  EXPECT_LT(result.seconds, 1.0) << describe(result);
  EXPECT_FALSE(result.axioms_used.empty());
  std::cout << GetParam() << ": " << describe(result) << "\n";
}

INSTANTIATE_TEST_SUITE_P(ExampleRules, TrueRule,
                         testing::Values("merge-convs-sharing-input", "merge-1x1-and-3x3-convs", "matmul-reassociate",
                                         "relu-through-transpose", "factor-scalar-out-of-add", "split-of-concat",
                                         "transpose-twice-is-identity", "layout-batch-to-height-and-back",
                                         "conv-of-weight-sum", "merge-convs-sharing-weight", "relu-transpose-concat",
                                         "add-reorder", "transpose-of-matmul", "conv-with-identity-kernel"),
                         [](const testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(Z3Prover, MergingConvsUsesConcatWeightsAndSplitUndoesConcat) {
  ProofResult result = prove_rule(example_rule("merge-convs-sharing-input"));
  std::string used;
  for (const std::string& label : result.axioms_used) used += label + "\n";
  EXPECT_NE(used.find("conv-concat-weights{"), std::string::npos) << used;
  EXPECT_NE(used.find("split-undoes-concat{"), std::string::npos) << used;
}

TEST(Z3Prover, TasoUnsoundConvMulRuleIsRefutedByACounterexample) {
  ProofResult result = prove_rule(example_rule("taso-unsound-drop-mul-after-conv"));
  EXPECT_EQ(result.status, ProofStatus::Refuted) << describe(result);
  EXPECT_NE(result.reason.find("counterexample: output 0 differs"), std::string::npos) << result.reason;
}

TEST(Z3Prover, TasoUnsoundConvMulRuleIsNotProvedByZ3Alone) {
  ProveOptions options;
  options.numeric_refutation = false;
  ProofResult result = prove_rule(example_rule("taso-unsound-drop-mul-after-conv"), options);
  EXPECT_NE(result.status, ProofStatus::Proved) << describe(result);
  EXPECT_LT(result.seconds, 3.0);
}

TEST(Z3Prover, SidesLargerThanTheNumericLimitGoToZ3Alone) {
  // Before: every instance was run on the executor first, seconds for a batch-16 conv. After: above
  // the limit Z3 alone decides; a true rule still proves and the unsound one is still not proved.
  const ExampleRule& rule = example_rule("merge-convs-sharing-input");
  int64_t elements = 0;
  Graph lhs = parse_graph(rule.lhs);
  for (ValueId input : lhs.inputs()) elements += lhs.value(input).type.shape.numel();
  ProveOptions at_limit, below;
  at_limit.numeric_refutation_max_elements = elements;
  below.numeric_refutation_max_elements = elements - 1;
  ProofResult checked = prove_rule(rule, at_limit), unchecked = prove_rule(rule, below);
  EXPECT_TRUE(checked.numerically_checked);
  EXPECT_FALSE(unchecked.numerically_checked);
  EXPECT_EQ(checked.status, ProofStatus::Proved) << describe(checked);
  EXPECT_EQ(unchecked.status, ProofStatus::Proved) << describe(unchecked);
  ProveOptions tiny;
  tiny.numeric_refutation_max_elements = 0;
  ProofResult unsound = prove_rule(example_rule("taso-unsound-drop-mul-after-conv"), tiny);
  EXPECT_FALSE(unsound.numerically_checked);
  EXPECT_NE(unsound.status, ProofStatus::Proved) << describe(unsound);
}

TEST(Z3Prover, SplitReturnsPiecesInConcatOrderOnly) {
  Graph lhs = parse_graph(R"(graph "l" opset 13 {
    input %x : f32[2,3]
    input %y : f32[2,3]
    %c = Concat[axis=1](%y, %x)
    %a, %b = Split[axis=1, split=[3,3]](%c)
    output %a
  })");
  Graph rhs = parse_graph("graph \"r\" opset 13 {\n input %x : f32[2,3]\n input %y : f32[2,3]\n output %x\n}");
  ProveOptions options;
  options.numeric_refutation = false;
  EXPECT_NE(prove(lhs, rhs, options).status, ProofStatus::Proved);
  EXPECT_EQ(prove(lhs, rhs).status, ProofStatus::Refuted);
}

TEST(Z3Prover, WithoutAxiomsOnlyIdenticalSidesAreProved) {
  std::vector<axioms::AxiomSchema> none;
  ProveOptions options;
  options.axioms = &none;
  ProofResult result = prove_rule(example_rule("matmul-reassociate"), options);
  EXPECT_EQ(result.status, ProofStatus::Unknown) << describe(result);
  EXPECT_TRUE(result.axioms_available.empty());
  const ExampleRule& rule = example_rule("relu-through-transpose");
  EXPECT_EQ(prove(parse_graph(rule.lhs), parse_graph(rule.lhs), options).status, ProofStatus::Proved);
}

// ResNet-18's residual Add after a per-channel bias: the rule add-add-to-add-add matched there
// (x + (y + b) = b + (x + y), b of shape [1,C,1,1]) and was Unknown with same-shape axioms only.
const char* kBiasAddLhs = R"(graph "l" opset 13 {
    input %x : f32[1,4,3,3]
    input %y : f32[1,4,3,3]
    input %b : f32[1,4,1,1]
    %t0 = Add(%y, %b)
    %t1 = Add(%x, %t0)
    output %t1
  })";
const char* kBiasAddRhs = R"(graph "r" opset 13 {
    input %x : f32[1,4,3,3]
    input %y : f32[1,4,3,3]
    input %b : f32[1,4,1,1]
    %t0 = Add(%x, %y)
    %t1 = Add(%b, %t0)
    output %t1
  })";

TEST(Z3Prover, AddsOfAPerChannelBiasReassociateAndCommute) {
  ProveOptions options;
  options.numeric_refutation = false;
  ProofResult result = prove(parse_graph(kBiasAddLhs), parse_graph(kBiasAddRhs), options);
  EXPECT_EQ(result.status, ProofStatus::Proved) << describe(result);
  std::string used;
  for (const std::string& label : result.axioms_used) used += label + "\n";
  EXPECT_NE(used.find("ewadd-associative-broadcast{"), std::string::npos) << used;
  EXPECT_NE(used.find("ewadd-commutative-broadcast{"), std::string::npos) << used;
}

TEST(Z3Prover, AddsOfAPerChannelBiasNeedTheBroadcastAxioms) {
  std::vector<axioms::AxiomSchema> same_shape_only = axioms::elementwise_axioms();
  ProveOptions options;
  options.numeric_refutation = false;
  options.axioms = &same_shape_only;
  EXPECT_EQ(prove(parse_graph(kBiasAddLhs), parse_graph(kBiasAddRhs), options).status, ProofStatus::Unknown);
}

TEST(Z3Prover, ABiasAddedTwiceIsNotABiasAddedOnce) {
  Graph lhs = parse_graph(kBiasAddLhs);
  Graph rhs = parse_graph(R"(graph "r" opset 13 {
    input %x : f32[1,4,3,3]
    input %y : f32[1,4,3,3]
    input %b : f32[1,4,1,1]
    %t0 = Add(%x, %b)
    %t1 = Add(%t0, %b)
    %t2 = Add(%y, %t1)
    output %t2
  })");
  ProveOptions options;
  options.numeric_refutation = false;
  EXPECT_NE(prove(lhs, rhs, options).status, ProofStatus::Proved);
  EXPECT_EQ(prove(lhs, rhs).status, ProofStatus::Refuted);
}

// BERT's failed instances: a bias [C] added to [N,T,C] (add-add-to-add-add), and GELU's
// x * (y + 1) with the constant a scalar (mul-mul-add-to-add-mul, right to left).
TEST(Z3Prover, AddsOfALowerRankBiasReassociate) {
  Graph lhs = parse_graph(R"(graph "l" opset 13 {
    input %x : f32[1,4,6]
    input %b : f32[6]
    input %y : f32[1,4,6]
    %t0 = Add(%b, %y)
    %t1 = Add(%x, %t0)
    output %t1
  })");
  Graph rhs = parse_graph(R"(graph "r" opset 13 {
    input %x : f32[1,4,6]
    input %b : f32[6]
    input %y : f32[1,4,6]
    %t0 = Add(%x, %b)
    %t1 = Add(%y, %t0)
    output %t1
  })");
  ProveOptions options;
  options.numeric_refutation = false;
  ProofResult result = prove(lhs, rhs, options);
  EXPECT_EQ(result.status, ProofStatus::Proved) << describe(result);
}

TEST(Z3Prover, MulDistributesOverAnAddOfAScalar) {
  Graph lhs = parse_graph(R"(graph "l" opset 13 {
    input %x : f32[1,4,6]
    input %y : f32[1,4,6]
    input %z : f32[]
    %t0 = Add(%y, %z)
    %t1 = Mul(%x, %t0)
    output %t1
  })");
  Graph rhs = parse_graph(R"(graph "r" opset 13 {
    input %x : f32[1,4,6]
    input %y : f32[1,4,6]
    input %z : f32[]
    %t0 = Mul(%x, %z)
    %t1 = Mul(%x, %y)
    %t2 = Add(%t0, %t1)
    output %t2
  })");
  ProveOptions options;
  options.numeric_refutation = false;
  ProofResult result = prove(lhs, rhs, options);
  EXPECT_EQ(result.status, ProofStatus::Proved) << describe(result);
  std::string used;
  for (const std::string& label : result.axioms_used) used += label + "\n";
  EXPECT_NE(used.find("ewmul-distributes-over-ewadd-broadcast{"), std::string::npos) << used;
}

TEST(Z3Prover, TimeoutOverloadProves) {
  const ExampleRule& rule = example_rule("factor-scalar-out-of-add");
  EXPECT_EQ(prove(parse_graph(rule.lhs), parse_graph(rule.rhs), std::chrono::milliseconds(500)).status,
            ProofStatus::Proved);
}

TEST(Z3ProverErrors, InputOfTwoTypes) {
  Graph lhs = parse_graph("graph \"l\" opset 13 {\n input %x : f32[2]\n %y = Relu(%x)\n output %y\n}");
  Graph rhs = parse_graph("graph \"r\" opset 13 {\n input %x : f32[3]\n %y = Relu(%x)\n output %y\n}");
  try {
    prove(lhs, rhs);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "rule sides differ: input %x is f32[2] on the left and f32[3] on the right");
  }
}

TEST(Z3ProverErrors, OutputTypesDiffer) {
  Graph lhs = parse_graph("graph \"l\" opset 13 {\n input %x : f32[2,3]\n output %x\n}");
  Graph rhs =
      parse_graph("graph \"r\" opset 13 {\n input %x : f32[2,3]\n %y = Transpose[perm=[1,0]](%x)\n output %y\n}");
  try {
    prove(lhs, rhs);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "rule sides differ: output 0 is f32[2,3] on the left and f32[3,2] on the right");
  }
}

}  // namespace
}  // namespace pet
