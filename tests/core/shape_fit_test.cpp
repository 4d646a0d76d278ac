// A node that does not fit its inputs is a returned reason: the shape rule's message as data,
// and nothing added to the graph.
#include <gtest/gtest.h>

#include "core/ops/layout.h"
#include "core/shape_fit.h"
#include "core/text_ir.h"

namespace pet {
namespace {

const char* kInput = R"(graph "g" opset 13 {
  input %x : f32[1,3,8,8]
  const %w : f32[4,4,3,3] = random(1)
  const %v : f32[4,3,3,3] = random(2)
  output %x
}
)";

Attributes conv_attrs() {
  return {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
          {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t{1}}};
}

TEST(ShapeFit, ARefusedNodeIsItsShapeRulesMessageAndAddsNothing) {
  Graph graph = parse_graph(kInput);
  std::string before = print_graph(graph);
  std::string refusal;
  std::optional<std::vector<ValueId>> outputs = add_node_if_fits(
      graph, "Conv", conv_attrs(), {*graph.find_value("x"), *graph.find_value("w")}, "c", {}, refusal);
  EXPECT_FALSE(outputs);
  EXPECT_EQ(refusal, "node 'c' (Conv): input has 3 channels, but weight 4x4x3x3 with group 1 expects 4");
  EXPECT_EQ(print_graph(graph), before);
}

TEST(ShapeFit, AFittingNodeIsAddedAsAddNodeWouldAddIt) {
  Graph graph = parse_graph(kInput);
  std::string refusal;
  std::optional<std::vector<ValueId>> outputs = add_node_if_fits(
      graph, "Conv", conv_attrs(), {*graph.find_value("x"), *graph.find_value("v")}, "c", {}, refusal);
  ASSERT_TRUE(outputs);
  EXPECT_EQ(refusal, "");
  graph.set_outputs(*outputs);
  EXPECT_EQ(print_graph(graph), R"(graph "g" opset 13 {
  input %x : f32[1,3,8,8]
  const %w : f32[4,4,3,3] = blob(effbbd9a89db4eed)
  const %v : f32[4,3,3,3] = blob(886ee5099e3c5326)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %v) : f32[1,4,8,8]
  output %c
}
)");
}

TEST(ShapeFit, ALayoutSplitThatDoesNotDivideIsARefusalBeforeTheBuilderThrows) {
  Shape shape({3, 1, 4, 6});
  EXPECT_EQ(ops::axis_split_refusal(shape, 0, 2, true, "batch-to-axis layout"),
            "batch-to-axis layout: axis 0 of 3x1x4x6 (size 3) is not divisible by factor 2");
  EXPECT_EQ(ops::axis_split_refusal(shape, 0, 3, false, "axis-to-batch layout"),
            "axis-to-batch layout: axis 0 is not a non-batch axis of 3x1x4x6");
  EXPECT_EQ(ops::axis_split_refusal(shape, 4, 1, true, "x"), "x: axis 4 is not an axis of 3x1x4x6");
  EXPECT_EQ(ops::axis_split_refusal(shape, 3, 3, false, "x"), std::nullopt);
}

}  // namespace
}  // namespace pet
