// The axiom library: names, families, instantiation for a goal, and the numeric check of every
// axiom (which also rejects a deliberately wrong one).
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <set>

#include "core/text_ir.h"
#include "verifier/axioms/axiom_util.h"
#include "verifier/axioms/instantiate.h"
#include "verifier/axioms/numeric_check.h"
#include "verifier/z3/example_rules.h"
#include "verifier/z3/prover.h"

namespace pet::axioms {
namespace {

constexpr uint64_t kSeed = 20240607;

TEST(Axioms, NamesAreKebabCaseAndUnique) {
  std::set<std::string> names;
  std::regex kebab("[a-z0-9]+(-[a-z0-9]+)*");
  for (const AxiomSchema& schema : all_axioms()) {
    EXPECT_TRUE(std::regex_match(schema.name, kebab)) << schema.name;
    EXPECT_TRUE(names.insert(schema.name).second) << "duplicate " << schema.name;
    EXPECT_FALSE(schema.statement.empty()) << schema.name;
  }
}

TEST(Axioms, EveryFamilyHasAxiomsAndEveryAxiomTwoExamples) {
  std::map<std::string, int> per_family;
  for (const AxiomSchema& schema : all_axioms()) {
    ++per_family[schema.family];
    EXPECT_GE(schema.examples.size(), 2u) << schema.name;
  }
  for (const char* family :
       {"elementwise", "scalar", "conv", "matmul", "concat_split", "transpose", "relu", "pooling", "layout", "identity"})
    EXPECT_GE(per_family[family], 1) << family;
}

TEST(Axioms, EveryAxiomHoldsNumerically) {
  std::cout << "numeric axiom check seed " << kSeed << "\n";
  auto start = std::chrono::steady_clock::now();
  int instances = 0;
  for (const AxiomSchema& schema : all_axioms())
    for (const AxiomCheck& check : check_axiom(schema, kSeed)) {
      ++instances;
      EXPECT_TRUE(check.passed) << check.instance << " (seed " << check.seed << "): " << check.failure;
    }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << all_axioms().size() << " axioms, " << instances << " example instances checked in " << seconds << " s\n";
  EXPECT_LT(seconds, 60.0);
}

// Deliberately wrong (for this test only): a conv followed by a scalar multiply is the conv.
AxiomSchema conv_then_scalar_mul_is_conv() {
  return {"conv-then-scalar-mul-is-conv",
          "wrong",
          "Mul(Conv(x, w), s) = Conv(x, w)",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& conv : index.of("Conv"))
              if (is_plain_conv(conv)) result.push_back(conv_params(conv));
            return result;
          },
          [](const AxiomParams&) { return true; },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "x")), w = s.input("w", shape_param(p, "w"));
            ValueId scalar = s.input("s", Shape{});
            ValueId conv = node(s.lhs, "Conv", conv_attrs(p), {x, w});
            s.set_outputs({node(s.lhs, "Mul", {}, {conv, scalar})}, {node(s.rhs, "Conv", conv_attrs(p), {x, w})});
            return s;
          },
          {conv_example({1, 2, 5, 5}, {3, 2, 3, 3}, 1, 1, 1), conv_example({1, 2, 4, 4}, {2, 2, 1, 1}, 1, 0, 1)}};
}

TEST(Axioms, NumericCheckRejectsADeliberatelyWrongAxiom) {
  std::vector<AxiomCheck> checks = check_axiom(conv_then_scalar_mul_is_conv(), kSeed);
  ASSERT_EQ(checks.size(), 2u);
  for (const AxiomCheck& check : checks) {
    EXPECT_FALSE(check.passed) << check.instance;
    EXPECT_NE(check.failure.find("output 0 differs by up to"), std::string::npos) << check.failure;
  }
}

TEST(Axioms, AWrongAxiomWouldProveTheUnsoundRuleWhichIsWhyAxiomsAreChecked) {
  std::vector<AxiomSchema> with_wrong = all_axioms();
  with_wrong.push_back(conv_then_scalar_mul_is_conv());
  ProveOptions options;
  options.axioms = &with_wrong;
  options.numeric_refutation = false;
  const ExampleRule& rule = example_rule("taso-unsound-drop-mul-after-conv");
  EXPECT_EQ(prove(parse_graph(rule.lhs), parse_graph(rule.rhs), options).status, ProofStatus::Proved);
}

TEST(Axioms, InstantiationFollowsTheGoalsSignatures) {
  const ExampleRule& rule = example_rule("merge-convs-sharing-input");
  Graph lhs = parse_graph(rule.lhs), rhs = parse_graph(rule.rhs);
  Instantiation instantiation = instantiate_axioms({&lhs, &rhs}, all_axioms(), {});
  std::set<std::string> labels;
  for (const AxiomInstance& instance : instantiation.instances) labels.insert(instance.label);
  EXPECT_TRUE(
      labels.count("conv-concat-weights{dilations=[1,1], filters=[2,3], group=1, pads=[1,1,1,1], "
                   "strides=[1,1], w=[5,4,3,3], x=[1,4,6,6]}"));
  // Round 2 reads the Concat of conv outputs that round 1's instance introduced.
  EXPECT_TRUE(labels.count("split-undoes-concat{axis=1, shape=[1,5,6,6], sizes=[2,3]}"));
  EXPECT_FALSE(instantiation.truncated);
  EXPECT_LE(instantiation.rounds_run, 3);
}

TEST(Axioms, InstantiationStopsAtTheInstanceLimit) {
  const ExampleRule& rule = example_rule("merge-convs-sharing-input");
  Graph lhs = parse_graph(rule.lhs), rhs = parse_graph(rule.rhs);
  Instantiation instantiation = instantiate_axioms({&lhs, &rhs}, all_axioms(), {3, 2});
  EXPECT_EQ(instantiation.instances.size(), 2u);
  EXPECT_TRUE(instantiation.truncated);
}

}  // namespace
}  // namespace pet::axioms
