// The generator's contract: deterministic output, the equivalence switch, and pruning it counts.
#include <gtest/gtest.h>

#include "core/structural_hash.h"
#include "core/text_ir.h"
#include "mutant/generator.h"

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

TEST(Generator, DepthBoundsEveryPath) {
  GeneratorOptions shallow;
  shallow.depth = 2;
  for (const Mutant& mutant : generate_mutants(parse_graph(kConv), shallow).mutants)
    EXPECT_LE(mutant.program.nodes().size(), 3u) << mutant.family;  // two per path, the compute op shared
}

}  // namespace
}  // namespace pet::mutant
