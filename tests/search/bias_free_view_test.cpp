// The bias-free view that rules over convs are matched in: before -> after on textual IR, and the
// way back.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "search/rules/bias_free_view.h"
#include "tests/search/node_lines.h"
#include "verifier/differential.h"

namespace pet::search {
namespace {

using pet::testing::node_lines;

Graph parse_named(const std::string& body) { return parse_graph("graph \"g\" opset 13 {\n" + body + "}\n"); }

const std::string kInputs = "  input %x : f32[1,4,6,6]\n  const %w : f32[8,4,3,3] = random(1)\n"
                            "  const %b : f32[8] = random(2)\n";

TEST(BiasFreeView, SplitsABiasedConvIntoConvAndPerChannelAdd) {
  Graph graph = parse_named(kInputs +
                            "  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b)\n"
                            "  %r = Relu(%y)\n  output %r\n");
  std::optional<Graph> view = bias_free_view(graph);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(node_lines(*view),
            "%y/unbiased = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,8,6,6]\n"
            "%y = Add(%y/unbiased, %b/channel) : f32[1,8,6,6]\n"
            "%r = Relu(%y) : f32[1,8,6,6]\n"
            "output %r\n");
  EXPECT_EQ(view->value(*view->find_value("b/channel")).type.to_string(), "f32[1,8,1,1]");
  EXPECT_TRUE(differential(graph, *view, 1).passed);
  EXPECT_EQ(restore_conv_biases(*view), 1);
  EXPECT_EQ(node_lines(*view),
            "%y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %y_bias) : f32[1,8,6,6]\n"
            "%r = Relu(%y) : f32[1,8,6,6]\n"
            "output %r\n");
  EXPECT_TRUE(differential(graph, *view, 2).passed);
}

TEST(BiasFreeView, NoBiasedConvNoView) {
  Graph graph = parse_named(kInputs + "  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)\n"
                                      "  output %y\n");
  EXPECT_FALSE(bias_free_view(graph).has_value());
}

// The activation applies after the bias: Relu(conv + b) is no per-channel Add after a conv.
TEST(BiasFreeView, LeavesAConvWithAFusedActivation) {
  Graph graph = parse_named(
      kInputs + "  %y = Conv[activation=\"relu\", dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b)\n"
                "  output %y\n");
  EXPECT_FALSE(bias_free_view(graph).has_value());
}

// A bias computed in the graph (no constant) could not be fused back.
TEST(BiasFreeView, LeavesAConvWhoseBiasIsNoConstant) {
  Graph graph = parse_named("  input %x : f32[1,4,6,6]\n  input %b : f32[8]\n  const %w : f32[8,4,3,3] = random(1)\n"
                            "  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b)\n"
                            "  output %y\n");
  EXPECT_FALSE(bias_free_view(graph).has_value());
}

}  // namespace
}  // namespace pet::search
