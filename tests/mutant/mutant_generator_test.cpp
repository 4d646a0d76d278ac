// The generator's contract: deterministic output, the equivalence switch, and pruning it counts.
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/structural_hash.h"
#include "core/text_ir.h"
#include "mutant/generator.h"
#include "mutant/layout_identity.h"

namespace pet::mutant {
namespace {

const char* kConv = R"(graph "conv" opset 13 {
  input %x : f32[2,4,32,8]
  input %w : f32[4,4,3,3]
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
  output %y
})";

std::vector<std::string> fingerprints(const Generation& result) {
  std::vector<std::string> list;
  for (const Mutant& mutant : result.mutants)
    list.push_back(mutant.family + "#" + std::to_string(structural_hash(mutant.program)));
  return list;
}

TEST(Generator, SameInputSameMutantsInTheSameOrder) {
  Graph conv = parse_graph(kConv);
  EXPECT_EQ(fingerprints(generate_mutants(conv)), fingerprints(generate_mutants(conv)));
}

// Before: a modulo by the empty batch (a batch-ratio factor) killed the process with SIGFPE.
TEST(Generator, ASubprogramWithAnEmptyTensorGetsNoMutants) {
  struct Case {
    std::string x, w;
  };
  for (const Case& c : std::vector<Case>{{"0,4,32,8", "4,4,3,3"}, {"2,0,32,8", "4,0,3,3"}, {"2,4,32,8", "0,4,3,3"}}) {
    std::string text = kConv;
    text.replace(text.find("2,4,32,8"), 8, c.x);
    text.replace(text.find("4,4,3,3"), 7, c.w);
    Generation result = generate_mutants(parse_graph(text));
    SCOPED_TRACE(c.x + " and " + c.w);
    EXPECT_TRUE(result.mutants.empty());
    EXPECT_TRUE(result.stats.empty_tensors);
    EXPECT_EQ(result.stats.examined, 0);
  }
  EXPECT_FALSE(generate_mutants(parse_graph(kConv)).stats.empty_tensors);
}

TEST(Generator, EquivalenceSwitchSelectsFullOrPartialMutants) {
  Graph conv = parse_graph(kConv);
  GeneratorOptions full_only, partial_only;
  full_only.equivalence = Equivalence::FullOnly;
  partial_only.equivalence = Equivalence::PartialOnly;
  Generation full = generate_mutants(conv, full_only), partial = generate_mutants(conv, partial_only);
  ASSERT_FALSE(full.mutants.empty());
  ASSERT_FALSE(partial.mutants.empty());
  for (const Mutant& mutant : full.mutants) EXPECT_EQ(mutant.verdict.kind, VerdictKind::Full) << mutant.family;
  for (const Mutant& mutant : partial.mutants) EXPECT_EQ(mutant.verdict.kind, VerdictKind::Partial) << mutant.family;
}

TEST(Generator, EveryMutantHasTheOriginalsInterfaceAndIsNotTheOriginal) {
  Graph conv = parse_graph(kConv);
  Generation result = generate_mutants(conv);
  for (const Mutant& mutant : result.mutants) {
    EXPECT_NE(structural_hash(mutant.program), structural_hash(conv)) << mutant.family;
    ASSERT_EQ(mutant.program.outputs().size(), 1u);
    EXPECT_EQ(mutant.program.value(mutant.program.outputs()[0]).type, conv.value(conv.outputs()[0]).type);
    EXPECT_NE(mutant.verdict.kind, VerdictKind::Rejected);
  }
}

TEST(Generator, PrunesAndCountsWhatItPrunes) {
  Generation result = generate_mutants(parse_graph(kConv));
  const GeneratorStats& stats = result.stats;
  EXPECT_GT(stats.shape_mismatches, 0);
  EXPECT_GT(stats.cancelling_layouts, 0);  // e.g. swapping H and W twice, found by running the chain
  EXPECT_GT(stats.repeated_ops, 0);
  EXPECT_GT(stats.examined, 0);
  EXPECT_EQ(stats.examined, stats.full + stats.partial + stats.rejected);
  EXPECT_NE(stats.summary().find("examined"), std::string::npos);
}

TEST(Generator, WorkBudgetStopsAtTheSameMutantOnEveryRun) {
  Graph conv = parse_graph(kConv);
  Generation whole = generate_mutants(conv);
  EXPECT_FALSE(whole.stats.out_of_work);
  EXPECT_GT(whole.stats.work, 0);
  GeneratorOptions budgeted;
  budgeted.max_work = whole.stats.work / 3;
  Generation first = generate_mutants(conv, budgeted), second = generate_mutants(conv, budgeted);
  EXPECT_TRUE(first.stats.out_of_work);
  EXPECT_NE(first.stats.summary().find("work budget spent"), std::string::npos) << first.stats.summary();
  EXPECT_LT(first.stats.examined, whole.stats.examined);
  EXPECT_EQ(fingerprints(first), fingerprints(second));
  EXPECT_EQ(first.stats.work, second.stats.work);
  std::vector<std::string> all = fingerprints(whole);
  for (const std::string& found : fingerprints(first))
    EXPECT_NE(std::find(all.begin(), all.end(), found), all.end()) << found << " is not one of the whole run's";
}

TEST(Generator, PlacementBudgetBoundsTheEnumerationOnEveryRun) {
  Graph conv = parse_graph(kConv);
  Generation whole = generate_mutants(conv);
  // shape-rule refusals are not placements
  int64_t tried = whole.stats.placed + whole.stats.repeated_ops + whole.stats.off_target + whole.stats.cancelling_layouts;
  GeneratorOptions budgeted;
  budgeted.max_placements = tried / 4;
  Generation first = generate_mutants(conv, budgeted), second = generate_mutants(conv, budgeted);
  EXPECT_TRUE(first.stats.out_of_work);
  EXPECT_NE(first.stats.summary().find("work budget spent"), std::string::npos) << first.stats.summary();
  EXPECT_LT(first.stats.placed, whole.stats.placed);
  EXPECT_LT(first.stats.examined, whole.stats.examined);
  EXPECT_EQ(fingerprints(first), fingerprints(second));
  std::vector<std::string> all = fingerprints(whole);
  for (const std::string& found : fingerprints(first))
    EXPECT_NE(std::find(all.begin(), all.end(), found), all.end()) << found << " is not one of the whole run's";
  budgeted.max_placements = tried + 1;
  EXPECT_EQ(fingerprints(generate_mutants(conv, budgeted)), fingerprints(whole)) << "a budget above the need changes nothing";
}

TEST(LayoutPrune, FindsATransformThatUndoesAnotherAfterTheConvWithoutComputingTheConv) {
  auto build = [](const char* second_perm) {
    return parse_graph(fmt::format(R"(graph "undo" opset 13 {{
  input %x : f32[1,256,6,6]
  input %w : f32[6,256,3,3]
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
  %t = Transpose[perm=[0,1,3,2]](%y)
  %u = Transpose[perm={}](%t)
  output %u
}})", second_perm));
  };
  int64_t work = 0;
  EXPECT_TRUE(recomputes_existing_value(build("[0,1,3,2]"), 2026, work)) << "swapping H and W twice is %y";
  EXPECT_LT(work, 100) << "read the transposes and the conv's output, never its 256x3x3 window";
  work = 0;
  EXPECT_FALSE(recomputes_existing_value(build("[0,2,3,1]"), 2026, work)) << "a different layout is a new value";
  EXPECT_GT(work, 0);
}

TEST(Generator, DepthBoundsEveryPath) {
  GeneratorOptions shallow;
  shallow.depth = 2;
  for (const Mutant& mutant : generate_mutants(parse_graph(kConv), shallow).mutants)
    EXPECT_LE(mutant.program.nodes().size(), 3u) << mutant.family;  // two per path, the compute op shared
}

}  // namespace
}  // namespace pet::mutant
