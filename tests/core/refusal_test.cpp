// A shape rule's refusal is a value: the rule returns its message, helpers pass it on with
// PET_TRY / PET_TRY_ASSIGN, and only the edges that read a user's model raise it as a UserError.
#include <gtest/gtest.h>

#include "core/graph.h"
#include "core/registry.h"
#include "core/text_ir.h"
#include "tests/core/op_test_util.h"

namespace pet {
namespace {

using test::expect_user_error;

const TensorType kMatrix{DType::f32, Shape({2, 3})};
const TensorType kVector{DType::f32, Shape({4})};

ShapeResult add_types(const TensorType& a, const TensorType& b) {
  return infer_types(OpRegistry::global().get("Add"), {}, {&a, &b}, "n");
}

TEST(Refusal, ARuleThatFitsReturnsTheTypes) {
  ShapeResult fits = add_types(kMatrix, kMatrix);
  ASSERT_FALSE(fits.refused());
  EXPECT_EQ(fits.value(), std::vector<TensorType>{kMatrix});
}

TEST(Refusal, ARuleThatRefusesReturnsItsMessage) {
  ShapeResult refused = add_types(kMatrix, kVector);
  ASSERT_TRUE(refused.refused());
  EXPECT_EQ(refused.refusal().message, "node 'n' (Add): cannot broadcast shapes 2x3 and 4");
}

TEST(Refusal, TheInputCountIsARefusalOfTheNode) {
  ShapeResult refused = infer_types(OpRegistry::global().get("Add"), {}, {&kMatrix}, "n");
  ASSERT_TRUE(refused.refused());
  EXPECT_EQ(refused.refusal().message, "node 'n' (Add): takes 2 to 2 inputs, got 1");
}

TEST(Refusal, ReadingTheValueOfARefusalIsAnInternalError) {
  EXPECT_THROW(static_cast<void>(add_types(kMatrix, kVector).value()), InternalError);
  EXPECT_THROW(static_cast<void>(add_types(kMatrix, kMatrix).refusal()), InternalError);
}

// Helpers in the shape of a rule's: a check, a value, and a rule that passes both on.
ShapeCheck check_positive(int64_t n) {
  if (n <= 0) return Refusal{"n " + std::to_string(n) + " is not positive"};
  return {};
}

Refusable<int64_t> halve(int64_t n) {
  if (n % 2 != 0) return Refusal{"n " + std::to_string(n) + " is odd"};
  return n / 2;
}

Refusable<int64_t> quarter_of_positive(int64_t n) {
  PET_TRY(check_positive(n));
  PET_TRY_ASSIGN(int64_t half, halve(n));
  PET_TRY_ASSIGN(int64_t quarter, halve(half));
  return quarter;
}

TEST(Refusal, PetTryPassesTheFirstRefusalOn) {
  EXPECT_EQ(quarter_of_positive(12).value(), 3);
  EXPECT_EQ(quarter_of_positive(-4).refusal().message, "n -4 is not positive");
  EXPECT_EQ(quarter_of_positive(6).refusal().message, "n 3 is odd");
}

TEST(Refusal, ValueOrThrowIsTheEdgesUserError) {
  EXPECT_EQ(add_types(kMatrix, kMatrix).value_or_throw(), std::vector<TensorType>{kMatrix});
  expect_user_error([] { static_cast<void>(add_types(kMatrix, kVector).value_or_throw()); },
                    "node 'n' (Add): cannot broadcast shapes 2x3 and 4");
  expect_user_error([] { check_positive(0).or_throw(); }, "n 0 is not positive");
}

TEST(Refusal, AddNodeAndTheTextualIrRaiseTheRulesMessageWordForWord) {
  std::string message = add_types(kMatrix, kVector).refusal().message;
  Graph graph;
  ValueId a = graph.add_input("a", kMatrix), b = graph.add_input("b", kVector);
  expect_user_error([&] { graph.add_node("Add", {}, {a, b}, "n"); }, message);
  expect_user_error(
      [] {
        parse_graph(R"(graph "g" opset 13 {
  input %a : f32[2,3]
  input %b : f32[4]
  %y = Add(%a, %b) @n
  output %y
})");
      },
      message);
}

}  // namespace
}  // namespace pet
