// Elementwise, activation, reduction, softmax and normalization ops: before -> after values on
// tiny graphs and exact shape-rule error messages (ONNX mapping: ops_elementwise_onnx_test.cpp).
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/graph.h"
#include "core/registry.h"
#include "tests/core/op_test_util.h"

namespace pet::test {
namespace {

// ---------------------------------------------------------------- binary arithmetic

TEST(ElementwiseBinary, SubBroadcastsRowOverMatrix) {
  expect_f32_near(run1("Sub", {}, {Tensor::f32({2, 2}, {5, 6, 7, 8}), Tensor::f32({2}, {1, 2})}), {2, 2}, {4, 4, 6, 6});
}

TEST(ElementwiseBinary, MulOnI64ScalesShapes) {
  expect_i64(run1("Mul", {}, {Tensor::i64({3}, {1, 2, 3}), Tensor::scalar_i64(4)}), {3}, {4, 8, 12});
}

TEST(ElementwiseBinary, DivTruncatesIntegersTowardZeroAndNeverTraps) {
  expect_i64(run1("Div", {}, {Tensor::i64({4}, {7, -7, 9, 5}), Tensor::i64({4}, {2, 2, -4, 0})}), {4}, {3, -3, -2, 0});
  expect_f32_near(run1("Div", {}, {Tensor::f32({2}, {1, 3}), Tensor::scalar_f32(2)}), {2}, {0.5f, 1.5f});
}

TEST(ElementwiseBinary, PowKeepsTheBaseTypeForMixedExponents) {
  expect_f32_near(run1("Pow", {}, {Tensor::f32({3}, {2, 3, -2}), Tensor::i64({1}, {2})}), {3}, {4, 9, 4});
  expect_f32_near(run1("Pow", {}, {Tensor::f32({2}, {4, 9}), Tensor::scalar_f32(0.5f)}), {2}, {2, 3});
  expect_i64(run1("Pow", {}, {Tensor::i64({3}, {2, 3, -2}), Tensor::i64({3}, {10, 0, 3})}), {3}, {1024, 1, -8});
  expect_i64(run1("Pow", {}, {Tensor::i64({2}, {4, 9}), Tensor::f32({2}, {0.5f, 2})}), {2}, {2, 81});
}

TEST(ElementwiseBinary, MismatchedTypesAreNamed) {
  expect_user_error([] { add_node_on("Sub", {}, {{DType::f32, {2}}, {DType::i64, {2}}}); },
                    "node 'n' (Sub): input types differ: f32[2] and i64[2]");
}

TEST(ElementwiseBinary, BoolArithmeticIsRejected) {
  expect_user_error([] { add_node_on("Mul", {}, {{DType::boolean, {2}}, {DType::boolean, {2}}}); },
                    "node 'n' (Mul): does not support element type bool");
  expect_user_error([] { add_node_on("Pow", {}, {{DType::f32, {2}}, {DType::boolean, {2}}}); },
                    "node 'n' (Pow): does not support element type bool (input 1)");
}

// ---------------------------------------------------------------- unary

TEST(ElementwiseUnary, NegAndAbsTakeFloatsAndIntegers) {
  expect_f32_near(run1("Neg", {}, {Tensor::f32({2}, {1.5f, -2})}), {2}, {-1.5f, 2});
  expect_i64(run1("Neg", {}, {Tensor::i64({2}, {3, -4})}), {2}, {-3, 4});
  expect_i64(run1("Abs", {}, {Tensor::i64({2}, {3, -4})}), {2}, {3, 4});
  expect_f32_near(run1("Abs", {}, {Tensor::f32({2}, {-0.5f, 2})}), {2}, {0.5f, 2});
}

TEST(ElementwiseUnary, TranscendentalsMatchTheirDefinitions) {
  Tensor x = Tensor::f32({3}, {0.25f, 1, 4});
  expect_f32_near(run1("Reciprocal", {}, {x}), {3}, {4, 1, 0.25f});
  expect_f32_near(run1("Sqrt", {}, {x}), {3}, {0.5f, 1, 2});
  expect_f32_near(run1("Log", {}, {x}), {3}, {std::log(0.25f), 0, std::log(4.0f)});
  expect_f32_near(run1("Exp", {}, {x}), {3}, {std::exp(0.25f), std::exp(1.0f), std::exp(4.0f)}, 1e-4f);
  expect_f32_near(run1("Tanh", {}, {x}), {3}, {std::tanh(0.25f), std::tanh(1.0f), std::tanh(4.0f)});
  expect_f32_near(run1("Erf", {}, {x}), {3}, {std::erf(0.25f), std::erf(1.0f), std::erf(4.0f)});
}

TEST(ElementwiseUnary, SigmoidIsStableAtBothEnds) {
  expect_f32_near(run1("Sigmoid", {}, {Tensor::f32({3}, {-100, 0, 100})}), {3}, {0, 0.5f, 1});
}

TEST(ElementwiseUnary, ActivationsReadTheirAttributes) {
  Tensor x = Tensor::f32({4}, {-6, -1, 1, 6});
  expect_f32_near(run1("LeakyRelu", {}, {x}), {4}, {-0.06f, -0.01f, 1, 6});
  expect_f32_near(run1("LeakyRelu", {{"alpha", 0.5}}, {x}), {4}, {-3, -0.5f, 1, 6});
  expect_f32_near(run1("HardSigmoid", {}, {x}), {4}, {0, 0.3f, 0.7f, 1});
  expect_f32_near(run1("HardSigmoid", {{"alpha", 0.5}, {"beta", 0.0}}, {x}), {4}, {0, 0, 0.5f, 1});
  expect_f32_near(run1("HardSwish", {}, {x}), {4}, {0, -1.0f / 3, 2.0f / 3, 6});
}

TEST(ElementwiseUnary, FloatOnlyOpsNameTheType) {
  expect_user_error([] { add_node_on("Exp", {}, {{DType::i64, {2}}}); },
                    "node 'n' (Exp): expects a float input (f32, f64 or bf16), got i64[2]");
  expect_user_error([] { add_node_on("Neg", {}, {{DType::boolean, {2}}}); },
                    "node 'n' (Neg): does not support element type bool");
}

// ---------------------------------------------------------------- variadic

TEST(ElementwiseVariadic, MaxFoldsThreeBroadcastInputs) {
  Tensor a = Tensor::f32({2, 2}, {1, 5, 3, 0});
  Tensor b = Tensor::f32({2}, {2, 2});
  Tensor c = Tensor::scalar_f32(4);
  expect_f32_near(run1("Max", {}, {a, b, c}), {2, 2}, {4, 5, 4, 4});
  expect_f32_near(run1("Min", {}, {a, b, c}), {2, 2}, {1, 2, 2, 0});
}

TEST(ElementwiseVariadic, SumOfOneInputCopiesAndSumBroadcastsLater) {
  expect_f32_near(run1("Sum", {}, {Tensor::f32({2}, {1, 2})}), {2}, {1, 2});
  expect_f32_near(run1("Sum", {}, {Tensor::scalar_f32(1), Tensor::f32({2, 1}, {1, 2}), Tensor::f32({3}, {10, 20, 30})}),
             {2, 3}, {12, 22, 32, 13, 23, 33});
  expect_i64(run1("Min", {}, {Tensor::i64({2}, {3, -1}), Tensor::i64({2}, {2, 0})}), {2}, {2, -1});
}

TEST(ElementwiseVariadic, IncompatibleShapesAreNamed) {
  expect_user_error([] { add_node_on("Sum", {}, {{DType::f32, {2}}, {DType::f32, {2}}, {DType::f32, {3}}}); },
                    "node 'n' (Sum): cannot broadcast shapes 2 and 3");
  expect_user_error([] { add_node_on("Max", {}, {{DType::f32, {2}}, {DType::i64, {2}}}); },
                    "node 'n' (Max): input types differ: f32[2] and i64[2]");
}

// ---------------------------------------------------------------- clip

TEST(Clip, ClampsToPresentBoundsOnly) {
  Tensor x = Tensor::f32({4}, {-3, -1, 1, 3});
  expect_f32_near(run1("Clip", {}, {x}), {4}, {-3, -1, 1, 3});
  expect_f32_near(run1("Clip", {{"min", -2.0}, {"max", 2.0}}, {x}), {4}, {-2, -1, 1, 2});
  expect_f32_near(run1("Clip", {{"max", 0.0}}, {x}), {4}, {-3, -1, 0, 0});
  expect_i64(run1("Clip", {{"min", 0.0}}, {Tensor::i64({3}, {-5, 0, 5})}), {3}, {0, 0, 5});
}

// ---------------------------------------------------------------- softmax

TEST(Softmax, SingleAxisNormalizesEachLine) {
  Tensor x = Tensor::f32({2, 2}, {0, 0, 0, std::log(3.0f)});
  expect_f32_near(run1("Softmax", {}, {x}), {2, 2}, {0.5f, 0.5f, 0.25f, 0.75f});
  expect_f32_near(run1("Softmax", {{"axis", int64_t{0}}}, {x}), {2, 2}, {0.5f, 0.25f, 0.5f, 0.75f});
}

TEST(Softmax, TrailingAxesNormalizeJointlyAsBeforeOpset13) {
  Tensor x = Tensor::f32({2, 2}, {0, 0, 0, std::log(5.0f)});
  expect_f32_near(run1("Softmax", {{"axis", int64_t{0}}, {"include_trailing_axes", int64_t{1}}}, {x}), {2, 2},
             {0.125f, 0.125f, 0.125f, 0.625f});
}

TEST(Softmax, LogSoftmaxIsTheLogOfSoftmaxAndStableForLargeInputs) {
  Tensor x = Tensor::f32({3}, {1000, 1000, 1000 + std::log(2.0f)});
  expect_f32_near(run1("LogSoftmax", {}, {x}), {3}, {std::log(0.25f), std::log(0.25f), std::log(0.5f)}, 1e-4f);
}

TEST(Softmax, AxisOutOfRangeIsNamed) {
  expect_user_error([] { add_node_on("Softmax", {{"axis", int64_t{2}}}, {{DType::f32, {2, 2}}}); },
                    "node 'n' (Softmax): axis 2 is out of range for rank 2");
}

// ---------------------------------------------------------------- normalization

TEST(BatchNormalization, AppliesPerChannelStatistics) {
  Tensor x = Tensor::f32({1, 2, 2}, {1, 3, 10, 20});
  Tensor scale = Tensor::f32({2}, {2, 1});
  Tensor bias = Tensor::f32({2}, {0, 1});
  Tensor mean = Tensor::f32({2}, {1, 10});
  Tensor var = Tensor::f32({2}, {4, 100});
  expect_f32_near(run1("BatchNormalization", {{"epsilon", 0.0}}, {x, scale, bias, mean, var}), {1, 2, 2}, {0, 2, 1, 2});
}

TEST(BatchNormalization, ParameterShapesAreChecked) {
  TensorType x{DType::f32, {1, 3, 4}}, per_channel{DType::f32, {3}}, wrong{DType::f32, {4}};
  expect_user_error([&] { add_node_on("BatchNormalization", {}, {x, per_channel, per_channel, wrong, per_channel}); },
                    "node 'n' (BatchNormalization): mean must have shape 3 (one value per channel), got 4");
}

TEST(LayerNormalization, NormalizesTrailingAxesThenScalesAndShifts) {
  Tensor x = Tensor::f32({2, 2}, {1, 3, 5, 7});
  Tensor scale = Tensor::f32({2}, {1, 2});
  Tensor bias = Tensor::f32({2}, {0, 1});
  expect_f32_near(run1("LayerNormalization", {{"epsilon", 0.0}}, {x, scale, bias}), {2, 2}, {-1, 3, -1, 3});
  expect_f32_near(run1("LayerNormalization", {{"epsilon", 0.0}}, {x, scale}), {2, 2}, {-1, 2, -1, 2});
}

TEST(LayerNormalization, ScaleMustBroadcastToInput) {
  expect_user_error(
      [] { add_node_on("LayerNormalization", {}, {{DType::f32, {2, 4}}, {DType::f32, {3}}}); },
      "node 'n' (LayerNormalization): scale of shape 3 does not broadcast to x's shape 2x4");
}

// ---------------------------------------------------------------- reductions

TEST(Reduce, MeanSumAndMaxOverListedAxes) {
  Tensor x = Tensor::f32({2, 3}, {1, 2, 3, 4, 5, 9});
  expect_f32_near(run1("ReduceMean", {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}}, {x}), {2}, {2, 6});
  expect_f32_near(run1("ReduceSum", {{"axes", std::vector<int64_t>{0}}}, {x}), {1, 3}, {5, 7, 12});
  expect_f32_near(run1("ReduceSum", {{"axes", std::vector<int64_t>{0, 1}}, {"keepdims", int64_t{0}}}, {x}), {}, {24});
  expect_f32_near(run1("ReduceMax", {{"axes", std::vector<int64_t>{-1}}}, {x}), {2, 1}, {3, 9});
  expect_i64(run1("ReduceMax", {{"axes", std::vector<int64_t>{0}}, {"keepdims", int64_t{0}}},
                  {Tensor::i64({2, 2}, {-1, 7, 3, -9})}),
             {2}, {3, 7});
}

TEST(Reduce, EmptyAxesReduceNothing) {
  expect_f32_near(run1("ReduceSum", {{"axes", std::vector<int64_t>{}}, {"keepdims", int64_t{0}}},
                  {Tensor::f32({2}, {1, 2})}),
             {2}, {1, 2});
}

TEST(Reduce, RepeatedAxesAndIntegerMeanAreRejected) {
  expect_user_error([] { add_node_on("ReduceSum", {{"axes", std::vector<int64_t>{1, -1}}}, {{DType::f32, {2, 2}}}); },
                    "node 'n' (ReduceSum): axes [1, -1] repeat an axis");
  expect_user_error([] { add_node_on("ReduceMean", {{"axes", std::vector<int64_t>{0}}}, {{DType::i64, {2}}}); },
                    "node 'n' (ReduceMean): does not support element type i64");
}

// ---------------------------------------------------------------- comparisons and logic

TEST(Compare, EqualLessGreaterBroadcastToBool) {
  Tensor a = Tensor::i64({2, 2}, {1, 2, 3, 4});
  Tensor b = Tensor::i64({2}, {2, 3});
  expect_bool(run1("Equal", {}, {a, b}), {2, 2}, {0, 0, 0, 0});
  expect_bool(run1("Less", {}, {a, b}), {2, 2}, {1, 1, 0, 0});
  expect_bool(run1("Greater", {}, {Tensor::f32({2}, {1, 5}), Tensor::scalar_f32(2)}), {2}, {0, 1});
  expect_bool(run1("Equal", {}, {Tensor::boolean({2}, {1, 0}), Tensor::boolean({1}, {1})}), {2}, {1, 0});
  expect_bool(run1("Not", {}, {Tensor::boolean({2}, {1, 0})}), {2}, {0, 1});
}

TEST(Compare, OrderingOfBoolsIsRejected) {
  expect_user_error([] { add_node_on("Less", {}, {{DType::boolean, {2}}, {DType::boolean, {2}}}); },
                    "node 'n' (Less): does not support element type bool");
  expect_user_error([] { add_node_on("Not", {}, {{DType::f32, {2}}}); },
                    "node 'n' (Not): expects a bool input, got f32[2]");
}

TEST(Where, SelectsWithBroadcastingOverAllThreeInputs) {
  Tensor condition = Tensor::boolean({2, 1}, {1, 0});
  Tensor x = Tensor::i64({2}, {1, 2});
  Tensor y = Tensor::scalar_i64(-1);
  expect_i64(run1("Where", {}, {condition, x, y}), {2, 2}, {1, 2, -1, -1});
}

TEST(Where, ConditionMustBeBool) {
  expect_user_error([] { add_node_on("Where", {}, {{DType::f32, {2}}, {DType::f32, {2}}, {DType::f32, {2}}}); },
                    "node 'n' (Where): condition must be bool, got f32[2]");
}

// ---------------------------------------------------------------- cast, identity, dropout

TEST(Cast, ConvertsBetweenF32I64AndBool) {
  Tensor x = Tensor::f32({4}, {-1.7f, 0, 0.5f, 2.9f});
  expect_i64(run1("Cast", {{"to", "i64"}}, {x}), {4}, {-1, 0, 0, 2});
  expect_bool(run1("Cast", {{"to", "bool"}}, {x}), {4}, {1, 0, 1, 1});
  expect_f32_near(run1("Cast", {{"to", "f32"}}, {Tensor::boolean({2}, {1, 0})}), {2}, {1, 0});
  expect_f32_near(run1("Cast", {{"to", "f32"}}, {Tensor::i64({2}, {-3, 4})}), {2}, {-3, 4});
}

TEST(Cast, UnknownTargetIsNamed) {
  expect_user_error([] { add_node_on("Cast", {{"to", "f8"}}, {{DType::f32, {2}}}); },
                    "node 'n' (Cast): cannot cast to 'f8'; the targets are f32, f16, bf16, f64, i8, u8, i16, u16, i32, "
                    "u32, i64, u64 and bool");
}

TEST(IdentityLike, IdentityAndDropoutPassTheInputThrough) {
  Tensor x = Tensor::i64({2}, {5, 6});
  expect_i64(run1("Identity", {}, {x}), {2}, {5, 6});
  std::vector<Tensor> dropped = run_op("Dropout", {{"with_mask", int64_t{1}}}, {Tensor::f32({2}, {1, 2})});
  ASSERT_EQ(dropped.size(), 2u);
  expect_f32_near(dropped[0], {2}, {1, 2});
  expect_bool(dropped[1], {2}, {1, 1});
  EXPECT_EQ(run_op("Dropout", {}, {Tensor::f32({2}, {1, 2})}).size(), 1u);
  EXPECT_TRUE(OpRegistry::global().get("Dropout").traits.identity_like);
}

}  // namespace
}  // namespace pet::test
