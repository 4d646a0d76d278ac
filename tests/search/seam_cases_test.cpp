// The seam cases of the correction-overhead bench: a case's conv in ResNet's context (followed by
// the residual Add and ReLU), and the overheads found for a case, cheapest first, the first also
// priced in that context.
#include <gtest/gtest.h>

#include "search/cost/cost_model.h"
#include "search/generate/seam_cases.h"

namespace pet::search {
namespace {

const SeamCase& case_named(const std::string& name) {
  static const std::vector<SeamCase> cases = resnet18_and_csrnet_seam_cases();
  for (const SeamCase& seam : cases)
    if (seam.name == name) return seam;
  ADD_FAILURE() << "no seam case " << name;
  return cases.front();
}

std::vector<std::string> ops_of(const Graph& graph) {
  std::vector<std::string> ops;
  for (const Node& node : graph.nodes()) ops.push_back(node.op());
  return ops;
}

TEST(SeamCases, TheResidualEpilogueAddsAFreshInputThenReluAfterTheProgramsOutput) {
  Graph conv = seam_case_program(case_named("resnet18 conv3x3 128x28x28 b1"));
  ASSERT_EQ(ops_of(conv), std::vector<std::string>{"Conv"});

  Graph block = with_residual_epilogue(conv);

  EXPECT_EQ(ops_of(block), (std::vector<std::string>{"Conv", "Add", "Relu"}));
  ASSERT_EQ(block.inputs().size(), 4u);
  EXPECT_EQ(block.value(block.inputs()[3]).name, "residual");
  EXPECT_EQ(block.value(block.inputs()[3]).type, block.value(conv.outputs()[0]).type);
  ASSERT_EQ(block.outputs().size(), 1u);
  EXPECT_EQ(block.node(2).outputs[0], block.outputs()[0]);
  EXPECT_EQ(block.node(1).inputs[0], block.node(0).outputs[0]);
}

TEST(SeamCases, OverheadsComeCheapestFirstAndOnlyTheFirstIsPricedInContext) {
  cost::CostModel cost(cost::load_device("h100"));
  std::vector<SeamOverhead> found = seam_overheads(case_named("resnet18 conv3x3 64x56x56 b16"), cost);
  ASSERT_GE(found.size(), 2u) << "batch-to-axis mutants of a batched 3x3 conv are partial";
  for (size_t i = 1; i < found.size(); ++i) {
    EXPECT_LE(found[i - 1].corrected_us, found[i].corrected_us) << i;
    EXPECT_EQ(found[i].original_in_context_us, 0) << i;
    EXPECT_EQ(found[i].corrected_in_context_us, 0) << i;
  }
  const SeamOverhead& first = found.front();
  EXPECT_GT(first.corrected_us, first.mutant_us) << "a correction costs something";
  EXPECT_GT(first.original_in_context_us, first.original_us) << "the epilogue costs something";
  EXPECT_GT(first.corrected_in_context_us, first.corrected_us);
}

}  // namespace
}  // namespace pet::search
