// NameSet: membership after inserts, erasures, copies and folds, against a plain std::set; a copy
// shares its base and carries only its own changes.
#include <random>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/graph.h"
#include "core/name_set.h"

namespace pet::test {
namespace {

NameSet names_up_to(int count) {
  NameSet names;
  for (int i = 0; i < count; ++i) names.insert(fmt::format("/encoder/layer.{}/output_0", i));
  return names;
}

TEST(NameSet, ACopyCarriesOnlyWhatItChanged) {
  NameSet parent = names_up_to(1000);
  ASSERT_EQ(parent.size(), 1000u);
  EXPECT_LT(parent.changes(), 300u) << "folded into a shared base as it grew";

  NameSet child = parent;
  size_t shared = child.changes();
  child.insert("candidate_output");
  child.erase("/encoder/layer.3/output_0");
  EXPECT_EQ(child.changes(), shared + 2);
  EXPECT_TRUE(child.contains("candidate_output"));
  EXPECT_FALSE(child.contains("/encoder/layer.3/output_0"));
  // The parent is as it was.
  EXPECT_FALSE(parent.contains("candidate_output"));
  EXPECT_TRUE(parent.contains("/encoder/layer.3/output_0"));
  EXPECT_EQ(parent.size(), 1000u);
  EXPECT_EQ(child.size(), 1000u);
}

// A finalize pass on a candidate's copy removes many names at once; the copy keeps them as its
// own removals until they pass half the base, then folds.
TEST(NameSet, RemovalsFoldOnlyPastHalfTheBase) {
  NameSet parent = names_up_to(1000);
  NameSet copy = parent;
  size_t shared = copy.changes();
  size_t base = parent.size() - shared;  // the folded part
  size_t removals = base / 2;            // exactly half the base: still kept apart
  for (size_t i = 0; i < removals; ++i) copy.erase(fmt::format("/encoder/layer.{}/output_0", i));
  EXPECT_EQ(copy.changes(), shared + removals) << "not folded yet";
  copy.erase(fmt::format("/encoder/layer.{}/output_0", removals));
  EXPECT_EQ(copy.changes(), 0u) << "folded";
  EXPECT_EQ(copy.size(), 1000u - removals - 1);
  EXPECT_FALSE(copy.contains("/encoder/layer.0/output_0"));
  EXPECT_TRUE(copy.contains("/encoder/layer.999/output_0"));
  EXPECT_TRUE(parent.contains("/encoder/layer.0/output_0"));
}

TEST(NameSet, ARemovedBaseNameComesBack) {
  NameSet names = names_up_to(200);
  NameSet copy = names;
  copy.erase("/encoder/layer.7/output_0");
  EXPECT_FALSE(copy.contains("/encoder/layer.7/output_0"));
  copy.insert("/encoder/layer.7/output_0");
  EXPECT_TRUE(copy.contains("/encoder/layer.7/output_0"));
  EXPECT_EQ(copy.size(), 200u);
}

TEST(NameSet, TakenAndMissingNamesAreInternalErrors) {
  NameSet names = names_up_to(3);
  EXPECT_THROW(names.insert("/encoder/layer.1/output_0"), InternalError);
  EXPECT_THROW(names.erase("absent"), InternalError);
}

// Random inserts, erasures and copies, each step checked against a std::set that is copied along.
TEST(NameSet, AgreesWithAPlainSetUnderRandomEditsAndCopies) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937_64 random(seed);
    NameSet names;
    std::set<std::string> expected;
    for (int step = 0; step < 2000; ++step) {
      std::string name = fmt::format("v{}", random() % 600);
      switch (random() % 8) {
        case 0: {  // continue in a copy, as the search does with each candidate
          NameSet copy = names;
          names = std::move(copy);
          break;
        }
        case 1:
        case 2:
          if (expected.erase(name)) names.erase(name);
          break;
        default:
          if (expected.insert(name).second) names.insert(name);
      }
      ASSERT_EQ(names.size(), expected.size()) << "step " << step;
    }
    for (int i = 0; i < 600; ++i) {
      std::string name = fmt::format("v{}", i);
      ASSERT_EQ(names.contains(name), expected.count(name) == 1) << name;
    }
  }
}

// Before: a graph's copy copied every value name into its own set; after: it shares them, and
// a name freed in the copy is free there alone.
TEST(NameSet, AGraphCopyNamesItsNewValuesWithoutTouchingTheOriginal) {
  Graph original;
  ValueId x = original.add_input("x", {DType::f32, {2, 3}});
  for (int i = 0; i < 100; ++i) x = original.add_node1("Neg", {}, {x}, fmt::format("neg{}", i));
  original.add_output(x);
  Graph candidate = original;
  ValueId extra = candidate.add_node1("Neg", {}, {x}, "neg0");
  EXPECT_EQ(candidate.value(extra).name, "neg0_1") << "neg0 is taken";
  EXPECT_EQ(original.unique_value_name("neg0_1"), "neg0_1") << "the original has no neg0_1";
  candidate.remove_last_node();
  EXPECT_EQ(candidate.unique_value_name("neg0_1"), "neg0_1") << "removing the node freed its name";
  EXPECT_EQ(candidate.unique_value_name("neg99"), "neg99_1");
}

}  // namespace
}  // namespace pet::test
