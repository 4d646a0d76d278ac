// Finalize passes, before -> after in textual IR, each numerically unchanged; then the whole stage
// to its fixed point.
#include <gtest/gtest.h>

#include "core/executor.h"
#include "core/text_ir.h"
#include "search/passes/finalize.h"
#include "search/passes/eliminate_common_subexpressions.h"
#include "search/passes/eliminate_layout_chains.h"
#include "search/passes/fold_weights.h"
#include "search/passes/fuse_activations.h"
#include "verifier/differential.h"
#include "tests/search/node_lines.h"

namespace pet {
namespace {

using pet::testing::node_lines;

// Runs `pass` on the parsed program; expects `changes`, the node lines `after`, and equal values.
void check_pass(int (*pass)(Graph&), const std::string& before_text, int changes, const std::string& after) {
  Graph before = parse_graph(before_text);
  Graph graph = before;
  EXPECT_EQ(pass(graph), changes);
  graph.validate();
  EXPECT_EQ(node_lines(graph), after);
  DifferentialReport report = differential(before, graph, 23, Tolerance{1e-6, 1e-6});
  EXPECT_TRUE(report.passed) << "seed 23, max abs error " << report.max_abs_error();
}

std::string program(const std::string& body) { return "graph \"g\" opset 13 {\n" + body + "}\n"; }

const char* kConvInputs = "  input %x : f32[1,2,5,5]\n  input %w : f32[3,2,3,3]\n";
const char* kConvAttrs = "[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]]";

// ---- fuse-activations ---------------------------------------------------------------------

TEST(FuseActivations, ReluAfterConvBecomesTheConvsActivation) {
  check_pass(fuse_activations,
             program(std::string(kConvInputs) + "  %c = Conv" + kConvAttrs + "(%x, %w)\n  %y = Relu(%c)\n  output %y\n"),
             1,
             "%y = Conv[activation=\"relu\", dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : "
             "f32[1,3,5,5]\noutput %y\n");
}

TEST(FuseActivations, MatMulAndGemmTakeTheirRelus) {
  check_pass(fuse_activations, program(R"(  input %a : f32[4,6]
  input %b : f32[6,5]
  input %c : f32[5]
  %m = MatMul(%a, %b)
  %r = Relu(%m)
  %g = Gemm[alpha=1, beta=1, transA=0, transB=0](%a, %b, %c)
  %s = Relu(%g)
  %y = Add(%r, %s)
  output %y
)"),
             2,
             "%r = MatMul[activation=\"relu\"](%a, %b) : f32[4,5]\n"
             "%s = Gemm[activation=\"relu\", alpha=1, beta=1, transA=0, transB=0](%a, %b, %c) : f32[4,5]\n"
             "%y = Add(%r, %s) : f32[4,5]\n"
             "output %y\n");
}

TEST(FuseActivations, ReluAfterACorrectedLayoutJoinsTheLayoutOverwrite) {
  check_pass(fuse_activations, program(R"(  input %m : f32[1,4,32,8]
  input %p : f32[1,4,1,8]
  %o = LayoutOverwrite[expanded=[1,4,2,16,8], groups=[2,1,1,1], offsets=[0,0,15,0], perm=[2,0,1,3,4]](%m, %p)
  %y = Relu(%o)
  output %y
)"),
             1,
             "%y = LayoutOverwrite[activation=\"relu\", expanded=[1,4,2,16,8], groups=[2,1,1,1], offsets=[0,0,15,0], "
             "perm=[2,0,1,3,4]](%m, %p) : f32[2,4,16,8]\noutput %y\n");
}

TEST(FuseActivations, ReluAfterASplitOfAConvMovesIntoTheConv) {
  check_pass(fuse_activations,
             program(std::string(kConvInputs) + "  %c = Conv" + kConvAttrs +
                     "(%x, %w)\n  %a, %b = Split[axis=1, split=[1,2]](%c)\n  %ra = Relu(%a)\n  %rb = Relu(%b)\n"
                     "  output %ra\n  output %rb\n"),
             1,
             "%c = Conv[activation=\"relu\", dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : "
             "f32[1,3,5,5]\n"
             "%ra, %rb = Split[axis=1, split=[1,2]](%c) : f32[1,1,5,5], f32[1,2,5,5]\n"
             "output %ra\noutput %rb\n");
}

TEST(FuseActivations, ReluAfterATransposedMatMulMovesIntoTheMatMul) {
  check_pass(fuse_activations, program(R"(  input %a : f32[4,6]
  input %b : f32[6,5]
  %m = MatMul(%a, %b)
  %t = Transpose[perm=[1,0]](%m)
  %y = Relu(%t)
  output %y
)"),
             1, "%m = MatMul[activation=\"relu\"](%a, %b) : f32[4,5]\n%y = Transpose[perm=[1,0]](%m) : f32[5,4]\noutput %y\n");
}

TEST(FuseActivations, TheFusedProducerKeepsItsPlace) {
  check_pass(fuse_activations, program(R"(  input %a : f32[4,6]
  input %b : f32[6,5]
  %m = MatMul(%a, %b)
  %n = Neg(%a)
  %r = Relu(%m)
  %y = MatMul(%n, %b)
  output %r
  output %y
)"),
             1,
             "%r = MatMul[activation=\"relu\"](%a, %b) : f32[4,5]\n"
             "%n = Neg(%a) : f32[4,6]\n"
             "%y = MatMul(%n, %b) : f32[4,5]\n"
             "output %r\noutput %y\n");
}

TEST(FuseActivations, LeavesASplitWithADifferentReaderAlone) {
  Graph graph = parse_graph(program(std::string(kConvInputs) + "  %c = Conv" + kConvAttrs +
                                    "(%x, %w)\n  %a, %b = Split[axis=1, split=[1,2]](%c)\n  %ra = Relu(%a)\n"
                                    "  %nb = Neg(%b)\n  output %ra\n  output %nb\n"));
  EXPECT_EQ(fuse_activations(graph), 0);
}

TEST(FuseActivations, LeavesAProducerWithAnotherReaderOrAGraphOutputAlone) {
  std::string shared = program(std::string(kConvInputs) + "  %c = Conv" + kConvAttrs +
                               "(%x, %w)\n  %y = Relu(%c)\n  %z = Add(%y, %c)\n  output %z\n");
  std::string exposed = program(std::string(kConvInputs) + "  %c = Conv" + kConvAttrs +
                                "(%x, %w)\n  %y = Relu(%c)\n  output %c\n  output %y\n");
  for (const std::string& text : {shared, exposed}) {
    Graph graph = parse_graph(text);
    std::string printed = print_graph(graph);
    EXPECT_EQ(fuse_activations(graph), 0);
    EXPECT_EQ(print_graph(graph), printed);
  }
}

TEST(FuseActivations, LeavesReluAfterAnOpWithoutTheAttributeAlone) {
  Graph graph = parse_graph(program("  input %x : f32[4]\n  %a = Neg(%x)\n  %y = Relu(%a)\n  output %y\n"));
  EXPECT_EQ(fuse_activations(graph), 0);
}

// ---- eliminate-layout-chains --------------------------------------------------------------

TEST(EliminateLayoutChains, TransposeThenItsInverseIsRemoved) {
  check_pass(eliminate_layout_chains, program(R"(  input %x : f32[2,3,4]
  %t = Transpose[perm=[2,0,1]](%x)
  %u = Transpose[perm=[1,2,0]](%t)
  %y = Relu(%u)
  output %y
)"),
             1, "%y = Relu(%x) : f32[2,3,4]\noutput %y\n");
}

TEST(EliminateLayoutChains, ReshapeFlattenAndTheirInverseCancel) {
  check_pass(eliminate_layout_chains, program(R"(  input %x : f32[2,3,4]
  %f = Flatten[axis=1](%x)
  %u = Reshape[shape=[2,3,4]](%f)
  %y = Neg(%u)
  output %y
)"),
             1, "%y = Neg(%x) : f32[2,3,4]\noutput %y\n");
}

TEST(EliminateLayoutChains, LayoutReluInverseLayoutBecomesRelu) {
  check_pass(eliminate_layout_chains, program(R"(  input %x : f32[4,3,8,8]
  %s = Layout[expanded=[2,2,3,8,8], groups=[1,1,2,1], perm=[1,2,0,3,4]](%x)
  %r = Relu(%s)
  %n = Neg(%r)
  %y = Layout[expanded=[2,3,2,8,8], groups=[2,1,1,1], perm=[2,0,1,3,4]](%n)
  output %y
)"),
             1, "%r = Relu(%x) : f32[4,3,8,8]\n%y = Neg(%r) : f32[4,3,8,8]\noutput %y\n");
}

TEST(EliminateLayoutChains, AnOutputOnlyLayoutThatIsTheIdentityIsBypassed) {
  check_pass(eliminate_layout_chains, program(R"(  input %x : f32[2,3]
  %a = Neg(%x)
  %y = Transpose[perm=[0,1]](%a)
  output %y
)"),
             1, "%y = Neg(%x) : f32[2,3]\noutput %y\n");
}

TEST(EliminateLayoutChains, ConsecutiveLayoutsComposeIntoOne) {
  check_pass(eliminate_layout_chains, program(R"(  input %x : f32[2,3,4]
  %a = Layout[expanded=[2,3,4], groups=[1,1,1], perm=[2,0,1]](%x)
  %y = Layout[expanded=[4,2,3], groups=[1,1,1], perm=[0,2,1]](%a)
  output %y
)"),
             1, "%y = Layout[expanded=[2,3,4], groups=[1,1,1], perm=[2,1,0]](%x) : f32[4,3,2]\noutput %y\n");
}

TEST(EliminateLayoutChains, LeavesChainsThatAreNotTheIdentityAlone) {
  Graph graph = parse_graph(program(R"(  input %x : f32[2,3,4]
  %t = Transpose[perm=[2,0,1]](%x)
  %r = Relu(%t)
  %u = Transpose[perm=[2,0,1]](%r)
  output %u
)"));
  std::string printed = print_graph(graph);
  EXPECT_EQ(eliminate_layout_chains(graph), 0);
  EXPECT_EQ(print_graph(graph), printed);
}

TEST(EliminateLayoutChains, KeepsTheElementwiseChainWhenItHasAnotherReader) {
  Graph graph = parse_graph(program(R"(  input %x : f32[2,3]
  %t = Transpose[perm=[1,0]](%x)
  %r = Relu(%t)
  %u = Transpose[perm=[1,0]](%r)
  %z = Add(%u, %x)
  output %z
  output %r
)"));
  EXPECT_EQ(eliminate_layout_chains(graph), 0);
}

// ---- fold-weights -------------------------------------------------------------------------

const char* kTransposedWeight = R"(  input %x : f32[2,3]
  const %w0 : f32[4,3] = random(5)
  const %s : f32[3,4] = random(6)
  %w = Transpose[perm=[1,0]](%w0)
  %w2 = Mul(%w, %s)
  %y = MatMul(%x, %w2)
  output %y
)";

TEST(FoldWeights, WeightOnlyNodesBecomeConstants) {
  check_pass(fold_weights, program(kTransposedWeight), 2, "%y = MatMul(%x, %w2) : f32[2,4]\noutput %y\n");
  Graph graph = parse_graph(program(kTransposedWeight));
  fold_weights(graph);
  ASSERT_TRUE(graph.is_constant(*graph.find_value("w2")));
}

// ---- eliminate-common-subexpressions ------------------------------------------------------

TEST(EliminateCommonSubexpressions, EqualNodesMergeAndCommutedInputsToo) {
  check_pass(eliminate_common_subexpressions, program(R"(  input %a : f32[3]
  input %b : f32[3]
  %p = Add(%a, %b)
  %q = Add(%b, %a)
  %r = Relu(%p)
  %s = Relu(%q)
  %y = Mul(%r, %s)
  output %y
)"),
             2, "%p = Add(%a, %b) : f32[3]\n%r = Relu(%p) : f32[3]\n%y = Mul(%r, %r) : f32[3]\noutput %y\n");
}

TEST(EliminateCommonSubexpressions, DifferentAttributesOrNonCommutedInputsStay) {
  Graph graph = parse_graph(program(R"(  input %a : f32[3]
  input %b : f32[3]
  %p = LeakyRelu[alpha=0.1](%a)
  %q = LeakyRelu[alpha=0.2](%a)
  %s = Sub(%a, %b)
  %t = Sub(%b, %a)
  %u = Add(%p, %q)
  %v = Add(%s, %t)
  %y = Add(%u, %v)
  output %y
)"));
  EXPECT_EQ(eliminate_common_subexpressions(graph), 0);
}

TEST(EliminateCommonSubexpressions, EqualConstantsCountAsTheSameInput) {
  check_pass(eliminate_common_subexpressions, program(R"(  input %x : f32[2,3]
  const %w1 : f32[3,2] = [1,2,3,4,5,6]
  const %w2 : f32[3,2] = [1,2,3,4,5,6]
  %p = MatMul(%x, %w1)
  %q = MatMul(%x, %w2)
  %y = Sub(%p, %q)
  output %y
)"),
             1, "%p = MatMul(%x, %w1) : f32[2,2]\n%y = Sub(%p, %p) : f32[2,2]\noutput %y\n");
}

TEST(EliminateCommonSubexpressions, AGraphOutputKeepsItsName) {
  check_pass(eliminate_common_subexpressions, program(R"(  input %a : f32[3]
  %p = Relu(%a)
  %q = Relu(%a)
  %y = Neg(%p)
  output %y
  output %q
)"),
             1, "%q = Relu(%a) : f32[3]\n%y = Neg(%q) : f32[3]\noutput %y\noutput %q\n");
}

// ---- the stage ----------------------------------------------------------------------------

// A searched-looking program: a weight transposed at run time, a batch-stacking layout around a
// Relu, a duplicated branch, a conv and its Relu, and a dead node.
const char* kSearched = R"(  input %x : f32[2,2,6,5]
  const %w0 : f32[2,3,3,3] = random(3)
  %w = Transpose[perm=[1,0,2,3]](%w0)
  %s = Layout[expanded=[2,1,2,6,5], groups=[1,1,2,1], perm=[1,2,0,3,4]](%x)
  %r = Relu(%s)
  %h = Layout[expanded=[1,2,2,6,5], groups=[2,1,1,1], perm=[2,0,1,3,4]](%r)
  %e = Relu(%x)
  %sum = Add(%h, %e)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%sum, %w)
  %y = Relu(%c)
  %dead = Neg(%c)
  output %y
)";

TEST(Finalize, ReachesAFixedPointThroughEveryPass) {
  Graph before = parse_graph(program(kSearched));
  Graph graph = before;
  std::vector<PassResult> results = finalize(graph);
  auto changes = [&](const std::string& pass) {
    for (const PassResult& result : results)
      if (result.pass == pass) return result.changes;
    ADD_FAILURE() << "no pass " << pass;
    return -1;
  };
  // The layout pair leaves Relu(%x) twice, which CSE merges in a later round; the Conv's Relu
  // fuses once the dead Neg no longer reads the Conv.
  EXPECT_EQ(changes("fold-weights"), 1);
  EXPECT_EQ(changes("eliminate-common-subexpressions"), 1);
  EXPECT_EQ(changes("eliminate-layout-chains"), 1);
  EXPECT_EQ(changes("fuse-corrections"), 0);
  EXPECT_EQ(changes("fuse-activations"), 1);
  EXPECT_EQ(changes("eliminate-dead-nodes"), 1);
  EXPECT_EQ(node_lines(graph),
            "%e = Relu(%x) : f32[2,2,6,5]\n"
            "%sum = Add(%e, %e) : f32[2,2,6,5]\n"
            "%y = Conv[activation=\"relu\", dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%sum, %w) : "
            "f32[2,3,6,5]\n"
            "output %y\n");
  DifferentialReport report = differential(before, graph, 29, Tolerance{1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << "seed 29, max abs error " << report.max_abs_error();
  std::string fixed = print_graph(graph);
  for (const PassResult& result : finalize(graph)) EXPECT_EQ(result.changes, 0) << result.pass;
  EXPECT_EQ(print_graph(graph), fixed);
}

TEST(Finalize, WithoutWeightFoldingWeightNodesStay) {
  Graph graph = parse_graph(program(kTransposedWeight));
  std::vector<PassResult> results = finalize(graph, FinalizeOptions{false});
  EXPECT_EQ(results.front().pass, "fold-weights");
  EXPECT_EQ(results.front().changes, 0);
  EXPECT_EQ(node_lines(graph),
            "%w = Transpose[perm=[1,0]](%w0) : f32[3,4]\n%w2 = Mul(%w, %s) : f32[3,4]\n"
            "%y = MatMul(%x, %w2) : f32[2,4]\noutput %y\n");
  finalize(graph);
  EXPECT_EQ(node_lines(graph), "%y = MatMul(%x, %w2) : f32[2,4]\noutput %y\n");
}

}  // namespace
}  // namespace pet
