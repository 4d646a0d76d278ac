// The rule generator's stages on small settings: enumeration, fingerprints with the Relu
// stand-in, each pruning, names, determinism across thread counts, and its user errors.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/text_ir.h"
#include "mutant/rules/candidate_pairs.h"
#include "mutant/rules/fingerprint.h"
#include "mutant/rules/rule_generator.h"
#include "mutant/rules/rule_records.h"

namespace pet::rules {
namespace {

const ShapeClass& elementwise() { return shape_classes().at(0); }

Program program(std::vector<Step> steps, std::vector<int> outputs) {
  return {static_cast<int>(elementwise().inputs.size()), std::move(steps), std::move(outputs)};
}

Step step(const std::string& label, std::vector<int> inputs) {
  return {rule_op_index(label), std::move(inputs), label.rfind("split", 0) == 0 ? 2 : 1};
}

const EnumeratedProgram* find(const std::vector<EnumeratedProgram>& programs, const Program& wanted) {
  uint64_t key = program_key(wanted, identity_renaming(wanted.pool_size));
  for (const EnumeratedProgram& p : programs)
    if (p.key == key) return &p;
  return nullptr;
}

std::vector<EnumeratedProgram> two_op_programs() { return enumerate_programs(elementwise(), {2, 128, 1}); }

TEST(RuleGenerator, EnumerationIsDeterministicAndKeepsOneOrderPerDag) {
  std::vector<EnumeratedProgram> a = two_op_programs(), b = two_op_programs();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].key, b[i].key);
  // relu(x), relu(y) built in either order is one program.
  int relu_x_relu_y = 0;
  Program wanted = program({step("relu", {0}), step("relu", {1})}, {4, 5});
  uint64_t key = program_key(wanted, identity_renaming(4));
  for (const EnumeratedProgram& p : a) relu_x_relu_y += p.key == key;
  EXPECT_EQ(relu_x_relu_y, 1);
}

TEST(RuleGenerator, ReluStandInLetsReluCommuteWithTranspose) {
  std::vector<EnumeratedProgram> programs = two_op_programs();
  const EnumeratedProgram* relu_first = find(programs, program({step("relu", {0}), step("transpose", {4})}, {5}));
  const EnumeratedProgram* transpose_first = find(programs, program({step("transpose", {0}), step("relu", {4})}, {5}));
  ASSERT_TRUE(relu_first && transpose_first);
  EXPECT_EQ(relu_first->fingerprint, transpose_first->fingerprint);
  const EnumeratedProgram* relu_x = find(programs, program({step("relu", {0})}, {4}));
  const EnumeratedProgram* x_plus_x = find(programs, program({step("add", {0, 0})}, {4}));
  ASSERT_TRUE(relu_x && x_plus_x);
  EXPECT_NE(relu_x->fingerprint, x_plus_x->fingerprint);
}

TEST(RuleGenerator, SplitOfConcatPairsWithTheInputsThemselves) {
  std::vector<EnumeratedProgram> programs = two_op_programs();
  const EnumeratedProgram* split = find(programs, program({step("concat-0", {0, 1}), step("split-0", {4})}, {5, 6}));
  const EnumeratedProgram* inputs = find(programs, program({}, {0, 1}));
  ASSERT_TRUE(split && inputs);
  EXPECT_EQ(split->fingerprint, inputs->fingerprint);
}

TEST(RuleGenerator, PruningLeavesNoRenamedOrSharedPairs) {
  std::vector<EnumeratedProgram> programs = two_op_programs();
  PairingStats stats;
  std::vector<CandidatePair> pairs = candidate_pairs(elementwise(), programs, 45, stats);
  EXPECT_EQ(stats.candidate_pairs, stats.common_subgraph + stats.common_context + stats.one_sided_inputs +
                                       stats.renamings + stats.substitutions + stats.kept);
  EXPECT_GT(stats.renamings, 0u);
  std::set<uint64_t> keys;
  for (const CandidatePair& pair : pairs) {
    EXPECT_TRUE(keys.insert(pair.canonical_key).second) << "two pairs equal up to renaming";
    std::vector<uint64_t> a = step_value_keys(programs[static_cast<size_t>(pair.left)].program, identity_renaming(4));
    std::vector<uint64_t> b = step_value_keys(programs[static_cast<size_t>(pair.right)].program, identity_renaming(4));
    for (uint64_t key : a) EXPECT_FALSE(std::binary_search(b.begin(), b.end(), key)) << "a shared step survived";
  }
}

TEST(RuleGenerator, RuleNamesComeFromBothSides) {
  std::vector<EnumeratedProgram> programs = two_op_programs();
  PairingStats stats;
  bool found = false;
  for (const CandidatePair& pair : candidate_pairs(elementwise(), programs, 45, stats)) {
    RuleRecord record = make_record(elementwise(), programs, pair, pair_graphs(elementwise(), programs, pair));
    if (record.name.rfind("concat-0-split-0-to-identity-", 0) == 0) {
      found = true;
      EXPECT_EQ(print_graph(parse_graph(record.rhs)), record.rhs);
      EXPECT_EQ(record.name.size(), std::string("concat-0-split-0-to-identity-").size() + 6);
    }
  }
  EXPECT_TRUE(found);
}

TEST(RuleGenerator, OutputDoesNotDependOnTheNumberOfThreads) {
  RuleGeneratorOptions options;
  options.max_ops = 2;
  options.classes = "elementwise,conv";
  options.jobs = 1;
  RuleGeneration one = generate_rules(options);
  options.jobs = 2;
  RuleGeneration two = generate_rules(options);
  EXPECT_EQ(rules_json(options.settings(), one.proved, false), rules_json(options.settings(), two.proved, false));
  EXPECT_EQ(rules_json(options.settings(), one.unproved, true), rules_json(options.settings(), two.unproved, true));
  EXPECT_GT(one.proved.size(), 20u);
}

TEST(RuleGeneratorErrors, UnknownShapeClass) {
  try {
    select_shape_classes("elementwise,tensor");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "unknown shape class 'tensor': use elementwise, matmul, conv, taso or all");
  }
}

TEST(RuleGeneratorErrors, MaxOpsOutOfRange) {
  RuleGeneratorOptions options;
  options.max_ops = 0;
  try {
    generate_rules(options);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "--max-ops must be between 1 and 5");
  }
}

}  // namespace
}  // namespace pet::rules
