// The committed rule library: regenerating it gives the same bytes, every rule is proved, and
// both sides of every rule compute the same values on the reference executor.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

#include "tests/test_temp_dir.h"
#include "core/executor.h"
#include "core/text_ir.h"
#include "mutant/rules/named_rules.h"
#include "mutant/rules/rule_generator.h"

namespace pet::rules {
namespace {

const std::string kRulesDir = std::string(PET_SOURCE_DIR) + "/mutant/rules";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::vector<LibraryRule>& library() {
  static const std::vector<LibraryRule> kRules = read_rule_library(kRulesDir);
  return kRules;
}

// Seeded float inputs for every input of either side, by name.
std::map<std::string, Tensor> shared_inputs(const Graph& lhs, const Graph& rhs, uint64_t seed) {
  std::map<std::string, Tensor> inputs;
  for (const Graph* side : {&lhs, &rhs})
    for (ValueId id : side->inputs()) {
      const Value& value = side->value(id);
      if (!inputs.count(value.name))
        inputs.emplace(value.name, Tensor::random_f32(value.type.shape, seed + inputs.size()));
    }
  return inputs;
}

std::vector<Tensor> run_side(const Graph& side, const std::map<std::string, Tensor>& all) {
  std::map<std::string, Tensor> inputs;
  for (ValueId id : side.inputs()) inputs.emplace(side.value(id).name, all.at(side.value(id).name));
  return execute_named(side, inputs);
}

// A regenerated file that differs from the committed one, copied where it outlives the test's
// private folder (removed when the process exits) so that it can be diffed.
std::filesystem::path keep_for_diff(const std::filesystem::path& regenerated) {
  std::filesystem::path kept =
      std::filesystem::temp_directory_path() / ("pet-stale-rules-" + std::to_string(::getpid()));
  std::filesystem::create_directories(kept);
  std::filesystem::copy_file(regenerated, kept / regenerated.filename(),
                             std::filesystem::copy_options::overwrite_existing);
  return kept / regenerated.filename();
}

TEST(RuleLibrary, RegeneratingGivesTheSameBytes) {
  std::filesystem::path out = pet::testing::private_temp_dir() / "pet_rules_regeneration";
  std::filesystem::remove_all(out);
  RuleGeneratorOptions options;  // the committed library uses the defaults
  RuleGeneration generation = generate_rules(options, &std::cout);
  std::cout << summary_text(generation);
  write_rule_files(generation, options, out.string());
  ASSERT_FALSE(generation.classes.empty());
  for (const ClassCounts& counts : generation.classes)
    for (const std::string& file : {library_file_name(counts.name), unproved_file_name(counts.name)}) {
      ASSERT_TRUE(std::filesystem::exists(kRulesDir + "/" + file)) << "mutant/rules/" << file << " is missing";
      if (read_text((out / file).string()) == read_text(kRulesDir + "/" + file)) continue;
      ADD_FAILURE() << "mutant/rules/" << file << " is stale: run `pet-rules --out mutant/rules` (regenerated: "
                    << keep_for_diff(out / file) << ", kept for a diff)";
    }
  std::filesystem::remove_all(out);
}

// The hand-written TASO substitutions (selected by name, not by "all"): every one proved, and the
// committed file is what `pet-rules --classes taso` writes.
TEST(RuleLibrary, NamedRulesAreProvedAndTheirFileIsCurrent) {
  std::filesystem::path out = pet::testing::private_temp_dir() / "pet_named_rules";
  std::filesystem::remove_all(out);
  RuleGeneratorOptions options;
  options.classes = "taso";
  RuleGeneration generation = generate_rules(options);
  EXPECT_EQ(generation.proved.size(), named_rules().size());
  EXPECT_TRUE(generation.unproved.empty());
  write_rule_files(generation, options, out.string());
  for (const std::string& file : {library_file_name("taso"), unproved_file_name("taso")})
    EXPECT_TRUE(read_text((out / file).string()) == read_text(kRulesDir + "/" + file))
        << "mutant/rules/" << file << " is stale: run `pet-rules --classes taso --out mutant/rules`";
  std::filesystem::remove_all(out);
  for (const NamedRule& rule : named_rules())
    EXPECT_TRUE(std::any_of(library().begin(), library().end(),
                            [&](const LibraryRule& entry) { return entry.name == rule.name && entry.status == "proved"; }))
        << rule.name;
}

TEST(RuleLibrary, EveryRuleIsMarkedProvedAndASampleProvesAgain) {
  ASSERT_GT(library().size(), 500u);
  for (const LibraryRule& rule : library()) {
    EXPECT_EQ(rule.status, "proved") << rule.name;
    EXPECT_FALSE(rule.axioms_used.empty()) << rule.name;
  }
  for (size_t i = 0; i < library().size(); i += 25) {
    const LibraryRule& rule = library()[i];
    ProofResult result = prove(parse_graph(rule.lhs), parse_graph(rule.rhs));
    EXPECT_EQ(result.status, ProofStatus::Proved) << rule.name << ": " << result.reason;
  }
}

TEST(RuleLibrary, BothSidesOfEveryRuleComputeTheSameValues) {
  const uint64_t seed = 20260;
  std::cout << "seed " << seed << "\n";
  for (const LibraryRule& rule : library()) {
    Graph lhs = parse_graph(rule.lhs), rhs = parse_graph(rule.rhs);
    std::map<std::string, Tensor> inputs = shared_inputs(lhs, rhs, seed);
    std::vector<Tensor> left = run_side(lhs, inputs), right = run_side(rhs, inputs);
    ASSERT_EQ(left.size(), right.size()) << rule.name;
    for (size_t k = 0; k < left.size(); ++k) {
      ASSERT_EQ(left[k].type(), right[k].type()) << rule.name << " output " << k;
      auto a = left[k].f32(), b = right[k].f32();
      for (size_t i = 0; i < a.size(); ++i)
        ASSERT_NEAR(a[i], b[i], 1e-4f * (1.0f + std::abs(a[i]))) << rule.name << " output " << k << " element " << i;
    }
  }
}

TEST(RuleLibrary, UnprovedPairsAreNeverMarkedProved) {
  size_t checked = 0;
  for (const char* shape_class : {"elementwise", "matmul", "conv", "taso"})
    for (const LibraryRule& rule : read_rule_file(kRulesDir + "/" + unproved_file_name(shape_class))) {
      EXPECT_NE(rule.status, "proved") << rule.name;
      ++checked;
    }
  EXPECT_GT(checked, 0u);  // the taso file is empty: every named rule is proved
}

}  // namespace
}  // namespace pet::rules
