// Cleanup passes, before -> after in textual IR, and numerically unchanged.
#include <gtest/gtest.h>

#include "core/executor.h"
#include "core/text_ir.h"
#include "search/passes/cleanup.h"
#include "search/passes/eliminate_dead_nodes.h"
#include "search/passes/fold_batchnorm.h"
#include "search/passes/remove_identities.h"
#include "verifier/differential.h"
#include "tests/search/node_lines.h"

namespace pet {
namespace {

using pet::testing::node_lines;

const char* kConvBn = R"(graph "g" opset 13 {
  input %x : f32[1,2,5,5]
  const %w : f32[3,2,3,3] = random(1)
  const %b : f32[3] = [0.1,0.2,0.3]
  const %gamma : f32[3] = [1,2,-3]
  const %beta : f32[3] = [0.5,0,-0.5]
  const %mean : f32[3] = [0.2,-0.1,0.3]
  const %var : f32[3] = [0.5,2,0.01]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b)
  %y = BatchNormalization[epsilon=0.25](%c, %gamma, %beta, %mean, %var)
  %z = Relu(%y)
  output %z
})";

TEST(FoldBatchnorm, ConvThenBnBecomesOneConvWithTheBnOutputName) {
  Graph before = parse_graph(kConvBn);
  Graph after = before;
  EXPECT_EQ(fold_batchnorm(after), 1);
  EXPECT_EQ(node_lines(after),
            "%y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w_bnfold, %c_bias_bnfold) : "
            "f32[1,3,5,5]\n"
            "%z = Relu(%y) : f32[1,3,5,5]\n"
            "output %z\n");
}

TEST(FoldBatchnorm, UsesTheModelEpsilon) {
  // epsilon 0.25 against a variance of 0.01: ignoring it (as TASO did) changes outputs by ~5x.
  Graph before = parse_graph(kConvBn);
  Graph after = before;
  fold_batchnorm(after);
  DifferentialReport report = differential(before, after, 7, Tolerance{1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << "max abs error " << report.max_abs_error();
}

TEST(FoldBatchnorm, LeavesAConvWithASecondReaderAlone) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[1,1,3,3]
    const %w : f32[1,1,1,1] = [2]
    const %s : f32[1] = [1]
    const %o : f32[1] = [0]
    %c = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w)
    %y = BatchNormalization[epsilon=0.001](%c, %s, %o, %o, %s)
    %z = Add(%y, %c)
    output %z
  })");
  EXPECT_EQ(fold_batchnorm(graph), 0);
}

TEST(FoldBatchnorm, LeavesAConvWithAFusedReluAlone) {
  std::string text = kConvBn;
  text.replace(text.find("%c = Conv["), 10, "%c = Conv[activation=\"relu\", ");
  Graph graph = parse_graph(text);
  EXPECT_EQ(fold_batchnorm(graph), 0);
}

TEST(RemoveIdentities, BypassesIdentityAndDropout) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[4]
    %a = Relu(%x)
    %b = Identity(%a)
    %c, %mask = Dropout[with_mask=1](%b)
    %d = Add(%c, %c)
    output %d
  })");
  EXPECT_EQ(remove_identities(graph), 2);
  EXPECT_EQ(node_lines(graph), "%a = Relu(%x) : f32[4]\n%d = Add(%a, %a) : f32[4]\noutput %d\n");
}

TEST(RemoveIdentities, GraphOutputKeepsItsName) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[4]
    %a = Relu(%x)
    %y = Identity(%a)
    output %y
  })");
  EXPECT_EQ(remove_identities(graph), 1);
  EXPECT_EQ(node_lines(graph), "%y = Relu(%x) : f32[4]\noutput %y\n");
}

TEST(RemoveIdentities, KeepsAnIdentityBetweenInputAndOutput) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[4]
    %y = Identity(%x)
    output %y
  })");
  EXPECT_EQ(remove_identities(graph), 0);  // bypassing would rename the model's output to "x"
}

TEST(EliminateDeadNodes, RemovesChainsThatReachNoOutput) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[4]
    %dead1 = Relu(%x)
    %dead2 = Add(%dead1, %x)
    %y = Relu(%x)
    output %y
  })");
  EXPECT_EQ(eliminate_dead_nodes(graph), 2);
  EXPECT_EQ(node_lines(graph), "%y = Relu(%x) : f32[4]\noutput %y\n");
}

TEST(Cleanup, ReportsEveryPassInOrder) {
  Graph graph = parse_graph(kConvBn);
  std::vector<PassResult> results = cleanup(graph);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].pass, "remove-identities");
  EXPECT_EQ(results[1].pass, "fold-batchnorm");
  EXPECT_EQ(results[1].changes, 1);
  EXPECT_EQ(results[2].pass, "eliminate-dead-nodes");
}

}  // namespace
}  // namespace pet
