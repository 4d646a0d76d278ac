// sink_layouts and fuse_conv_bias, before → after: a de-interleaved conv's bias and activation
// move back onto the conv, and the layouts between two such convs meet and cancel.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "search/passes/finalize.h"
#include "search/passes/fuse_conv_bias.h"
#include "search/passes/sink_layouts.h"
#include "tests/search/node_lines.h"
#include "verifier/differential.h"

namespace pet {
namespace {

using pet::testing::node_lines;

// Conv on de-interleaved rows and columns, re-interleaved, then the split-off bias and a Relu.
const char* kInterleavedConv = R"(graph "g" opset 13 {
  input %x : f32[1,4,8,8]
  const %w : f32[4,4,3,3] = random(1)
  const %b : f32[4] = [0.1,0.2,0.3,0.4]
  %d = Layout[expanded=[1,4,4,2,4,2], groups=[3,1,1,1], perm=[3,5,0,1,2,4]](%x) : f32[4,4,4,4]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%d, %w) : f32[4,4,4,4]
  %i = Layout[expanded=[2,2,1,4,4,4], groups=[1,1,2,2], perm=[2,3,4,0,5,1]](%c) : f32[1,4,8,8]
  %bs = Reshape[shape=[1,4,1,1]](%b) : f32[1,4,1,1]
  %a = Add(%i, %bs) : f32[1,4,8,8]
  %y = Relu(%a) : f32[1,4,8,8]
  output %y
}
)";

TEST(SinkLayouts, MovesTheInverseLayoutBelowBiasAndRelu) {
  Graph original = parse_graph(kInterleavedConv);
  Graph graph = original;
  EXPECT_EQ(sink_layouts(graph), 2);
  EXPECT_EQ(node_lines(graph),
            "%d = Layout[expanded=[1,4,4,2,4,2], groups=[3,1,1,1], perm=[3,5,0,1,2,4]](%x) : f32[4,4,4,4]\n"
            "%c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%d, %w) : f32[4,4,4,4]\n"
            "%bs = Reshape[shape=[1,4,1,1]](%b) : f32[1,4,1,1]\n"
            "%a_1 = Add(%c, %bs) : f32[4,4,4,4]\n"
            "%y_1 = Relu(%a_1) : f32[4,4,4,4]\n"
            "%y = Layout[expanded=[2,2,1,4,4,4], groups=[1,1,2,2], perm=[2,3,4,0,5,1]](%y_1) : f32[1,4,8,8]\n"
            "output %y\n");
  EXPECT_TRUE(differential(original, graph, 5).passed);
}

TEST(SinkLayouts, KeepsALayoutThatMovesChannelsAboveAPerChannelAdd) {
  // Swapping C and H (both 4) keeps the shape but not the channels: the bias cannot move above it.
  const char* text = R"(graph "g" opset 13 {
  input %x : f32[1,4,4,2]
  const %b : f32[1,4,1,1] = [1,2,3,4]
  %t = Transpose[perm=[0,2,1,3]](%x) : f32[1,4,4,2]
  %a = Add(%t, %b) : f32[1,4,4,2]
  output %a
}
)";
  Graph graph = parse_graph(text);
  EXPECT_EQ(sink_layouts(graph), 0);
  EXPECT_EQ(print_graph(graph), print_graph(parse_graph(text)));
  // A Relu has no other input: any layout moves below it.
  Graph relu = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,4,4,2]
  %t = Transpose[perm=[0,2,1,3]](%x) : f32[1,4,4,2]
  %r = Relu(%t) : f32[1,4,4,2]
  output %r
}
)");
  EXPECT_EQ(sink_layouts(relu), 1);
  EXPECT_EQ(node_lines(relu), "%r_1 = Relu(%x) : f32[1,4,4,2]\n%r = Transpose[perm=[0,2,1,3]](%r_1) : f32[1,4,4,2]\noutput %r\n");
}

TEST(FuseConvBias, TakesAPerChannelAddIntoTheConv) {
  Graph original = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,2,5,5]
  const %w : f32[3,2,3,3] = random(1)
  const %b : f32[3] = [0.1,0.2,0.3]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,3,5,5]
  %bs = Reshape[shape=[1,3,1,1]](%b) : f32[1,3,1,1]
  %y = Add(%c, %bs) : f32[1,3,5,5]
  output %y
}
)");
  Graph graph = original;
  EXPECT_EQ(fuse_conv_bias(graph), 1);
  // The conv keeps its place (the Reshape that is now dead goes in eliminate-dead-nodes).
  EXPECT_EQ(node_lines(graph),
            "%y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %c_bias) : f32[1,3,5,5]\n"
            "%bs = Reshape[shape=[1,3,1,1]](%b) : f32[1,3,1,1]\n"
            "output %y\n");
  EXPECT_TRUE(differential(original, graph, 5).passed);
  EXPECT_EQ(fuse_conv_bias(graph), 0) << "a conv with a bias takes no second one";
}

TEST(FuseConvBias, JoinsThePieceBiasesOfAChannelSplit) {
  Graph original = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,2,5,5]
  const %w : f32[3,2,1,1] = random(1)
  const %b1 : f32[2] = [0.1,0.2]
  const %b2 : f32[1] = [0.3]
  %c = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,3,5,5]
  %p, %q = Split[axis=1, split=[2,1]](%c) : f32[1,2,5,5], f32[1,1,5,5]
  %s1 = Reshape[shape=[1,2,1,1]](%b1) : f32[1,2,1,1]
  %s2 = Reshape[shape=[1,1,1,1]](%b2) : f32[1,1,1,1]
  %y = Add(%p, %s1) : f32[1,2,5,5]
  %z = Add(%q, %s2) : f32[1,1,5,5]
  output %y
  output %z
}
)");
  Graph graph = original;
  EXPECT_EQ(fuse_conv_bias(graph), 1);
  EXPECT_EQ(node_lines(graph),
            "%s1 = Reshape[shape=[1,2,1,1]](%b1) : f32[1,2,1,1]\n"
            "%s2 = Reshape[shape=[1,1,1,1]](%b2) : f32[1,1,1,1]\n"
            "%c_1 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w, %c_bias) : f32[1,3,5,5]\n"
            "%y, %z = Split[axis=1, split=[2,1]](%c_1) : f32[1,2,5,5], f32[1,1,5,5]\n"
            "output %y\noutput %z\n");
  EXPECT_TRUE(differential(original, graph, 5).passed);
}

TEST(Finalize, DeinterleavedConvChainKeepsOneLayoutAtEachEnd) {
  Graph original = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,4,8,8]
  const %w : f32[4,4,3,3] = random(1)
  const %v : f32[4,4,3,3] = random(2)
  %d1 = Layout[expanded=[1,4,4,2,4,2], groups=[3,1,1,1], perm=[3,5,0,1,2,4]](%x) : f32[4,4,4,4]
  %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%d1, %w) : f32[4,4,4,4]
  %i1 = Layout[expanded=[2,2,1,4,4,4], groups=[1,1,2,2], perm=[2,3,4,0,5,1]](%c1) : f32[1,4,8,8]
  %r1 = Relu(%i1) : f32[1,4,8,8]
  %d2 = Layout[expanded=[1,4,4,2,4,2], groups=[3,1,1,1], perm=[3,5,0,1,2,4]](%r1) : f32[4,4,4,4]
  %c2 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%d2, %v) : f32[4,4,4,4]
  %i2 = Layout[expanded=[2,2,1,4,4,4], groups=[1,1,2,2], perm=[2,3,4,0,5,1]](%c2) : f32[1,4,8,8]
  %y = Relu(%i2) : f32[1,4,8,8]
  output %y
}
)");
  Graph graph = original;
  finalize(graph);
  int layouts = 0, convs = 0;
  for (const Node& node : graph.nodes()) {
    layouts += node.op() == "Layout";
    convs += node.op() == "Conv" && node.attrs.has("activation");
  }
  EXPECT_EQ(layouts, 2) << print_graph(graph);
  EXPECT_EQ(convs, 2) << "both Relus fused into their convs:\n" << print_graph(graph);
  EXPECT_TRUE(differential(original, graph, 9).passed);
}

}  // namespace
}  // namespace pet
