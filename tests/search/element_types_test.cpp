// The element-type gate (verifier/element_domain.h) as the optimizer meets it: an arithmetic rule
// fires over f32 and not over integers, a rule that only moves elements fires over every type.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>

#include "core/error.h"
#include "core/text_ir.h"
#include "search/passes/finalize.h"
#include "search/rules/rule_matcher.h"
#include "tests/search/node_lines.h"

namespace pet::search {
namespace {

using pet::testing::node_lines;

RuleSet only(const std::string& name) {
  static const std::vector<rules::LibraryRule> library =
      rules::read_rule_library(std::string(PET_SOURCE_DIR) + "/mutant/rules");
  std::vector<rules::LibraryRule> chosen;
  for (const rules::LibraryRule& rule : library)
    if (rule.name == name) chosen.push_back(rule);
  EXPECT_EQ(chosen.size(), 1u) << name << " is missing from the library";
  return RuleSet::from_library(chosen);
}

// The graph with every "T" replaced by the type, or nothing when an op of this tree does not
// compute that type yet (types beyond f32/i64/bool arrive op by op: OpDef::extra_types).
std::optional<Graph> typed_graph(std::string text, const std::string& type, std::string& why) {
  for (size_t at; (at = text.find("T[")) != std::string::npos;) text.replace(at, 1, type);
  try {
    return parse_graph(text);
  } catch (const UserError& error) {
    why = error.what();
    return std::nullopt;
  }
}

// (a * s) + (a * s) -> (a + a) * s: proved over the reals, so only over f32.
const char* const kScaledSum = R"(graph "g" opset 13 {
  input %a : T[2,3]
  input %s : T[]
  %m = Mul(%a, %s)
  %y = Add(%m, %m)
  output %y
})";
const std::string kScaledSumRule = "scalar-mul-add-to-add-scalar-mul-b79eb5";

// Two transposes that cancel: elements moved and moved back, at any type.
const char* const kTransposedTwice = R"(graph "g" opset 13 {
  input %d : T[4,5]
  %t = Transpose[perm=[1,0]](%d)
  %y = Transpose[perm=[1,0]](%t)
  %z = Identity(%y)
  output %z
})";
const std::string kCancelRule = "transpose-transpose-to-identity-0c9f49";

std::vector<RuleApplication> apply(const std::string& rule, const Graph& graph, MatchStats& stats) {
  RuleSet rules = only(rule);
  return RuleMatcher(rules).apply_all(graph, &stats);
}

TEST(ElementTypes, ArithmeticRuleFiresOverF32) {
  std::string why;
  std::optional<Graph> graph = typed_graph(kScaledSum, "f32", why);
  ASSERT_TRUE(graph) << why;
  MatchStats stats;
  std::vector<RuleApplication> found = apply(kScaledSumRule, *graph, stats);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(node_lines(found[0].result), "%y/t0 = Add(%a, %a) : f32[2,3]\n%y = Mul(%y/t0, %s) : f32[2,3]\noutput %y\n");
}

// Integer arithmetic wraps: the same pattern over i64 and i32 stays as written.
TEST(ElementTypes, ArithmeticRuleDoesNotFireOverIntegers) {
  for (const char* type : {"i64", "i32"}) {
    std::string why;
    std::optional<Graph> graph = typed_graph(kScaledSum, type, why);
    ASSERT_TRUE(graph) << type << ": " << why;
    MatchStats stats;
    EXPECT_TRUE(apply(kScaledSumRule, *graph, stats).empty()) << type;
    EXPECT_EQ(stats.structural, 1) << type;
    EXPECT_EQ(stats.element_type_refused, 1) << type;
    Graph written = *graph;
    finalize(written);
    EXPECT_EQ(node_lines(written), node_lines(*graph)) << type << ": the passes leave it as written too";
  }
}

// Moving elements holds at every type: the transposes cancel over u8 and i64 as over f32.
TEST(ElementTypes, LayoutRuleFiresOverEveryType) {
  for (const char* type : {"f32", "i64", "u8", "i32"}) {
    std::string why;
    std::optional<Graph> graph = typed_graph(kTransposedTwice, type, why);
    ASSERT_TRUE(graph) << type << ": " << why;
    MatchStats stats;
    std::vector<RuleApplication> found = apply(kCancelRule, *graph, stats);
    ASSERT_EQ(found.size(), 1u) << type << ": refused " << stats.element_type_refused << ", not proved "
                                << stats.not_proved;
    EXPECT_EQ(node_lines(found[0].result), fmt::format("%z = Identity(%d) : {}[4,5]\noutput %z\n", type)) << type;
  }
}

}  // namespace
}  // namespace pet::search
