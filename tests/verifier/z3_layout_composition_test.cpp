// Layout composition for the layout axioms: composed attributes, numerically checked, and the
// pairs no single Layout can express.
#include <gtest/gtest.h>

#include "core/executor.h"
#include "core/ops/layout.h"
#include "verifier/axioms/layout_composition.h"

namespace pet::axioms {
namespace {

// Runs Layout `first` then `second` and the composed Layout on the same random input.
void expect_composition_matches(const Shape& shape, const Attributes& first, const Attributes& second) {
  std::optional<Attributes> both = compose_layouts(shape, first, second);
  ASSERT_TRUE(both.has_value());
  Graph two, one;
  ValueId x = two.add_input("x", {DType::f32, shape});
  two.add_output(two.add_node1("Layout", second, {two.add_node1("Layout", first, {x})}));
  ValueId y = one.add_input("x", {DType::f32, shape});
  one.add_output(one.add_node1("Layout", *both, {y}));
  Tensor input = Tensor::random_f32(shape, 11);
  EXPECT_TRUE(execute(two, {input})[0].same_content(execute(one, {input})[0]));
}

TEST(LayoutComposition, TwoTransposesComposeIntoOne) {
  Shape shape{2, 3, 4};
  Attributes first = ops::layout_transpose(shape, {1, 2, 0});
  Attributes second = ops::layout_transpose(Shape{3, 4, 2}, {2, 0, 1});
  expect_composition_matches(shape, first, second);
  EXPECT_TRUE(is_identity_layout(shape, *compose_layouts(shape, first, second)));
}

TEST(LayoutComposition, BatchToHeightThenBackIsIdentity) {
  Shape shape{4, 2, 3, 3};
  Attributes there = ops::layout_batch_to_height(shape, 2);
  Attributes back = ops::layout_height_to_batch(ops::layout_output_shape(there), 2);
  expect_composition_matches(shape, there, back);
  EXPECT_TRUE(is_identity_layout(shape, *compose_layouts(shape, there, back)));
}

TEST(LayoutComposition, DilationDeinterleaveThenBatchStacking) {
  Shape shape{2, 3, 6, 4};
  Attributes first = ops::layout_dilation_deinterleave(shape, 2, 2);
  Attributes second = ops::layout_batch_to_height(ops::layout_output_shape(first), 2);
  expect_composition_matches(shape, first, second);
}

TEST(LayoutComposition, UnitDimensionsAreKept) {
  Shape shape{1, 6, 1};
  Attributes first = ops::layout_attrs({1, 2, 3, 1}, {0, 2, 1, 3}, {1, 2, 1});
  Attributes second = ops::layout_transpose(Shape{1, 6, 1}, {2, 1, 0});
  expect_composition_matches(shape, first, second);
}

TEST(LayoutComposition, IncompatibleRadicesHaveNoSingleLayout) {
  // [2,3] read transposed into 6 elements, then read as [2,3] and transposed: 6 = 3*2 = 2*3 mixed.
  Attributes first = ops::layout_attrs({2, 3}, {1, 0}, {2});
  Attributes second = ops::layout_attrs({2, 3}, {1, 0}, {1, 1});
  EXPECT_FALSE(compose_layouts(Shape{2, 3}, first, second).has_value());
}

TEST(LayoutComposition, IdentityNeedsInOrderReadAndSameShape) {
  EXPECT_TRUE(is_identity_layout(Shape{2, 6}, ops::layout_attrs({2, 2, 3}, {0, 1, 2}, {1, 2})));
  EXPECT_FALSE(is_identity_layout(Shape{2, 6}, ops::layout_attrs({2, 2, 3}, {0, 1, 2}, {2, 1})));
  EXPECT_FALSE(is_identity_layout(Shape{2, 6}, ops::layout_attrs({2, 2, 3}, {1, 0, 2}, {1, 2})));
}

}  // namespace
}  // namespace pet::axioms
