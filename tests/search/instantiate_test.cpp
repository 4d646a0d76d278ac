// A rule side instantiated at a match's shapes: re-built at the new types, or the reason it does
// not fit them (the matcher counts it as shape_refused and moves on).
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "search/rules/compiled_rule.h"

namespace pet::search {
namespace {

const char* kSide = R"(graph "side" opset 13 {
  input %x : f32[1,4,8,8]
  input %w : f32[4,4,3,3]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,4,8,8]
  %r = Relu(%c) : f32[1,4,8,8]
  output %r
}
)";

TEST(Instantiate, TheSideAtLargerShapes) {
  std::string refusal;
  std::optional<Graph> instance = instantiate(
      parse_graph(kSide), {{DType::f32, {2, 4, 16, 16}}, {DType::f32, {4, 4, 3, 3}}}, nullptr, refusal);
  ASSERT_TRUE(instance) << refusal;
  EXPECT_EQ(print_graph(*instance), R"(graph "side" opset 13 {
  input %x : f32[2,4,16,16]
  input %w : f32[4,4,3,3]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[2,4,16,16]
  %r = Relu(%c) : f32[2,4,16,16]
  output %r
}
)");
}

TEST(Instantiate, ASideThatDoesNotFitIsTheShapeRulesReason) {
  std::string refusal;
  std::optional<Graph> instance = instantiate(
      parse_graph(kSide), {{DType::f32, {1, 3, 8, 8}}, {DType::f32, {4, 4, 3, 3}}}, nullptr, refusal);
  EXPECT_FALSE(instance);
  EXPECT_EQ(refusal, "node 'c' (Conv): input has 3 channels, but weight 4x4x3x3 with group 1 expects 4");
}

}  // namespace
}  // namespace pet::search
