// The wider elementwise family (activations, trigonometry, logic, Mod, PRelu, the remaining
// reductions, ArgMax/ArgMin, Hardmax, InstanceNormalization, LRN, MeanVarianceNormalization and
// LayerNormalization's statistics): before -> after values, ONNX mapping per opset, exact errors.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/graph.h"
#include "core/registry.h"
#include "tests/core/fake_onnx_node.h"
#include "tests/core/op_test_util.h"

namespace pet::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

const Tensor kSigned = Tensor::f32({4}, {-2.0f, -0.5f, 0.5f, 2.0f});

// ---------------------------------------------------------------- unary

TEST(ExtraUnary, ActivationsWithAttributes) {
  float e = std::exp(-2.0f) - 1.0f, h = std::exp(-0.5f) - 1.0f;
  expect_f32_near(run1("Elu", {{"alpha", 2.0}}, {kSigned}), {4}, {2 * e, 2 * h, 0.5f, 2.0f});
  expect_f32_near(run1("Selu", {{"alpha", 2.0}, {"gamma", 3.0}}, {kSigned}), {4}, {6 * e, 6 * h, 1.5f, 6.0f});
  expect_f32_near(run1("Celu", {{"alpha", 2.0}}, {kSigned}), {4},
             {2 * (std::exp(-1.0f) - 1), 2 * (std::exp(-0.25f) - 1), 0.5f, 2.0f});
  expect_f32_near(run1("ThresholdedRelu", {{"alpha", 0.5}}, {kSigned}), {4}, {0, 0, 0, 2});
  expect_f32_near(run1("Shrink", {{"lambd", 1.0}, {"bias", 0.5}}, {kSigned}), {4}, {-1.5f, 0, 0, 1.5f});
  expect_f32_near(run1("Softsign", {}, {kSigned}), {4}, {-2.0f / 3, -0.5f / 1.5f, 0.5f / 1.5f, 2.0f / 3});
  expect_f32_near(run1("Softplus", {}, {Tensor::f32({3}, {0.0f, 100.0f, -100.0f})}), {3}, {std::log(2.0f), 100.0f, 0.0f});
}

TEST(ExtraUnary, RoundingHalvesToEvenAndSignKeepsIntegers) {
  Tensor x = Tensor::f32({5}, {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f});
  expect_f32_near(run1("Round", {}, {x}), {5}, {-2, -0, 0, 2, 2});
  expect_f32_near(run1("Floor", {}, {x}), {5}, {-2, -1, 0, 1, 2});
  expect_f32_near(run1("Ceil", {}, {x}), {5}, {-1, -0, 1, 2, 3});
  expect_i64(run1("Sign", {}, {Tensor::i64({3}, {-7, 0, 9})}), {3}, {-1, 0, 1});
  expect_f32_near(run1("Sign", {}, {x}), {5}, {-1, -1, 1, 1, 1});
}

TEST(ExtraUnary, TrigonometryAndItsInverses) {
  Tensor x = Tensor::f32({2}, {0.0f, 0.5f});
  expect_f32_near(run1("Sin", {}, {x}), {2}, {0, std::sin(0.5f)});
  expect_f32_near(run1("Cos", {}, {x}), {2}, {1, std::cos(0.5f)});
  expect_f32_near(run1("Tan", {}, {x}), {2}, {0, std::tan(0.5f)});
  expect_f32_near(run1("Asin", {}, {x}), {2}, {0, std::asin(0.5f)});
  expect_f32_near(run1("Acos", {}, {x}), {2}, {std::acos(0.0f), std::acos(0.5f)});
  expect_f32_near(run1("Atan", {}, {x}), {2}, {0, std::atan(0.5f)});
  expect_f32_near(run1("Sinh", {}, {x}), {2}, {0, std::sinh(0.5f)});
  expect_f32_near(run1("Cosh", {}, {x}), {2}, {1, std::cosh(0.5f)});
  expect_f32_near(run1("Asinh", {}, {x}), {2}, {0, std::asinh(0.5f)});
  expect_f32_near(run1("Atanh", {}, {x}), {2}, {0, std::atanh(0.5f)});
  expect_f32_near(run1("Acosh", {}, {Tensor::f32({2}, {1.0f, 0.5f})}), {2}, {0, NAN});
}

TEST(ExtraUnary, NanAndInfinityTests) {
  Tensor x = Tensor::f32({4}, {-kInf, NAN, 1.0f, kInf});
  expect_bool(run1("IsNaN", {}, {x}), {4}, {0, 1, 0, 0});
  expect_bool(run1("IsInf", {}, {x}), {4}, {1, 0, 0, 1});
  expect_bool(run1("IsInf", {{"detect_positive", int64_t{0}}}, {x}), {4}, {1, 0, 0, 0});
  expect_bool(run1("IsInf", {{"detect_negative", int64_t{0}}}, {x}), {4}, {0, 0, 0, 1});
}

TEST(ExtraUnary, Errors) {
  expect_user_error([] { add_node_on("Sin", {}, {{DType::i64, {2}}}); },
                    "node 'n' (Sin): expects a float input (f32, f64 or bf16), got i64[2]");
  expect_user_error([] { add_node_on("IsNaN", {}, {{DType::boolean, {2}}}); },
                    "node 'n' (IsNaN): expects a float input (f32, f64 or bf16), got bool[2]");
  expect_user_error([] { add_node_on("Celu", {{"alpha", 0.0}}, {{DType::f32, {2}}}); },
                    "node 'n' (Celu): alpha must not be 0");
}

// ---------------------------------------------------------------- binary and variadic

TEST(ExtraBinary, LogicalOpsBroadcastBools) {
  Tensor a = Tensor::boolean({2, 2}, {0, 0, 1, 1});
  Tensor b = Tensor::boolean({2}, {0, 1});
  expect_bool(run1("And", {}, {a, b}), {2, 2}, {0, 0, 0, 1});
  expect_bool(run1("Or", {}, {a, b}), {2, 2}, {0, 1, 1, 1});
  expect_bool(run1("Xor", {}, {a, b}), {2, 2}, {0, 1, 1, 0});
  expect_user_error([] { add_node_on("And", {}, {{DType::f32, {2}}, {DType::f32, {2}}}); },
                    "node 'n' (And): expects bool inputs, got f32[2]");
}

TEST(ExtraBinary, OrderedComparisonsIncludeEquality) {
  Tensor a = Tensor::i64({3}, {1, 2, 3});
  expect_bool(run1("GreaterOrEqual", {}, {a, Tensor::scalar_i64(2)}), {3}, {0, 1, 1});
  expect_bool(run1("LessOrEqual", {}, {Tensor::f32({3}, {1, 2, 3}), Tensor::scalar_f32(2)}), {3}, {1, 1, 0});
}

TEST(ExtraBinary, ModTakesTheDivisorsSignUnlessFmod) {
  Tensor a = Tensor::i64({4}, {7, -7, 7, 5});
  Tensor b = Tensor::i64({4}, {3, 3, -3, 0});
  expect_i64(run1("Mod", {}, {a, b}), {4}, {1, 2, -2, 0});
  expect_i64(run1("Mod", {{"fmod", int64_t{1}}}, {a, b}), {4}, {1, -1, 1, 0});
  expect_f32_near(run1("Mod", {{"fmod", int64_t{1}}}, {Tensor::f32({2}, {-4.5f, 4.5f}), Tensor::scalar_f32(2)}), {2},
             {-0.5f, 0.5f});
  expect_user_error([] { add_node_on("Mod", {}, {{DType::f32, {2}}, {DType::f32, {2}}}); },
                    "node 'n' (Mod): f32 inputs need fmod = 1 (ONNX defines fmod = 0 for integers only)");
}

TEST(ExtraBinary, MeanAveragesBroadcastInputs) {
  expect_f32_near(run1("Mean", {}, {Tensor::f32({2}, {1, 2}), Tensor::scalar_f32(3), Tensor::f32({2}, {2, 4})}), {2},
             {2, 3});
  EXPECT_EQ(OpRegistry::global().get("Mean").traits.linearity, Linearity::Joint);
}

TEST(ExtraBinary, PReluSlopeBroadcastsOrGoesPerChannel) {
  Tensor x = Tensor::f32({1, 2, 2}, {-1, 1, -2, 2});
  expect_f32_near(run1("PRelu", {}, {x, Tensor::f32({2}, {0.5f, 0.25f})}), {1, 2, 2}, {-0.5f, 1, -1, 2});
  expect_f32_near(run1("PRelu", {{"channel_slope", int64_t{1}}}, {x, Tensor::f32({2}, {0.5f, 0.25f})}), {1, 2, 2},
             {-0.5f, 1, -0.5f, 2});
  expect_user_error([] { add_node_on("PRelu", {}, {{DType::f32, {2}}, {DType::f32, {2, 2}}}); },
                    "node 'n' (PRelu): slope of shape 2x2 does not broadcast to x's shape 2");
  expect_user_error(
      [] { add_node_on("PRelu", {{"channel_slope", int64_t{1}}}, {{DType::f32, {1, 2, 3}}, {DType::f32, {3}}}); },
      "node 'n' (PRelu): a per-channel slope must hold one value per channel of x's shape 1x2x3, got shape 3");
}

TEST(ExtraBinary, PReluOpset6SlopeIsPerChannelAndExportKeepsIt) {
  TensorType x{DType::f32, {2, 3, 4}}, slope{DType::f32, {3}};
  EXPECT_EQ(import_node(FakeImportNode("PRelu", 6, {}, {x, slope})).attrs,
            (Attributes{{"channel_slope", int64_t{1}}}));
  EXPECT_EQ(import_node(FakeImportNode("PRelu", 7, {}, {x, TensorType{DType::f32, {4}}})).attrs,
            (Attributes{{"channel_slope", int64_t{0}}}));
  FakeExportNode modern = export_node("PRelu", {{"channel_slope", int64_t{1}}}, {x, slope}, 13);
  EXPECT_EQ(exported_ops(modern), (std::vector<std::string>{"Unsqueeze", "PRelu"}));
  EXPECT_EQ(modern.constant(modern.nodes[0].inputs[1]).to_int_vector(), (std::vector<int64_t>{1}));
  FakeExportNode legacy = export_node("PRelu", {}, {{DType::f32, {2, 3, 3}}, slope}, 6);
  EXPECT_EQ(exported_ops(legacy), (std::vector<std::string>{"Unsqueeze", "PRelu"}));
  EXPECT_EQ(legacy.nodes[0].attrs.get_ints("axes"), (std::vector<int64_t>{0}));
}

// ---------------------------------------------------------------- reductions

const Tensor kGrid = Tensor::f32({2, 3}, {1, -2, 3, -4, 5, -6});

TEST(ExtraReduce, EveryReductionOverTheLastAxis) {
  Attributes last{{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}};
  expect_f32_near(run1("ReduceMin", last, {kGrid}), {2}, {-2, -6});
  expect_f32_near(run1("ReduceProd", last, {kGrid}), {2}, {-6, 120});
  expect_f32_near(run1("ReduceL1", last, {kGrid}), {2}, {6, 15});
  expect_f32_near(run1("ReduceL2", last, {kGrid}), {2}, {std::sqrt(14.0f), std::sqrt(77.0f)});
  expect_f32_near(run1("ReduceSumSquare", last, {kGrid}), {2}, {14, 77});
  expect_f32_near(run1("ReduceLogSum", last, {Tensor::f32({1, 2}, {1, 2})}), {1}, {std::log(3.0f)});
  expect_f32_near(run1("ReduceLogSumExp", last, {Tensor::f32({1, 2}, {1000, 1000})}), {1}, {1000 + std::log(2.0f)}, 1e-3f);
  expect_i64(run1("ReduceProd", last, {Tensor::i64({1, 3}, {2, -3, 4})}), {1}, {-24});
}

TEST(ExtraReduce, NoAxesKeepsEachElementsOwnResult) {
  Attributes none{{"axes", std::vector<int64_t>{}}, {"keepdims", int64_t{1}}};
  expect_f32_near(run1("ReduceL1", none, {Tensor::f32({2}, {-3, 4})}), {2}, {3, 4});
  expect_f32_near(run1("ReduceSumSquare", none, {Tensor::f32({2}, {-3, 4})}), {2}, {9, 16});
  EXPECT_EQ(exported_ops(export_node("ReduceL2", none, {{DType::f32, {2}}}, 13)), std::vector<std::string>{"Abs"});
  EXPECT_EQ(exported_ops(export_node("ReduceMin", none, {{DType::f32, {2}}}, 13)),
            std::vector<std::string>{"Identity"});
}

TEST(ExtraReduce, FloatOnlyReductionsRejectIntegers) {
  expect_user_error([] { add_node_on("ReduceL2", {{"axes", std::vector<int64_t>{0}}}, {{DType::i64, {2}}}); },
                    "node 'n' (ReduceL2): does not support element type i64");
}

TEST(ExtraReduce, ArgMaxAndArgMinPickFirstOrLastTies) {
  Tensor x = Tensor::f32({2, 3}, {1, 3, 3, 2, 2, 0});
  expect_i64(run1("ArgMax", {{"axis", int64_t{1}}}, {x}), {2, 1}, {1, 0});
  expect_i64(run1("ArgMax", {{"axis", int64_t{1}}, {"select_last_index", int64_t{1}}}, {x}), {2, 1}, {2, 1});
  expect_i64(run1("ArgMin", {{"axis", int64_t{0}}, {"keepdims", int64_t{0}}}, {x}), {3}, {0, 1, 1});
  expect_user_error([] { add_node_on("ArgMax", {{"axis", int64_t{2}}}, {{DType::f32, {2, 3}}}); },
                    "node 'n' (ArgMax): axis 2 is out of range for rank 2");
  expect_user_error([] { add_node_on("ArgMin", {}, {{DType::f32, {0, 3}}}); },
                    "node 'n' (ArgMin): axis 0 of shape 0x3 is empty, so it has no extreme element");
}

TEST(ExtraReduce, ArgMaxSelectLastIndexOnlyFromOpset12) {
  TensorType x{DType::f32, {2, 3}};
  EXPECT_EQ(import_node(FakeImportNode("ArgMax", 13, {{"axis", int64_t{-1}}, {"select_last_index", int64_t{1}}}, {x}))
                .attrs,
            (Attributes{{"axis", int64_t{1}}, {"keepdims", int64_t{1}}, {"select_last_index", int64_t{1}}}));
  expect_user_error([&] { import_node(FakeImportNode("ArgMax", 11, {{"select_last_index", int64_t{1}}}, {x})); },
                    "node 'n' (ArgMax, opset 11): attribute 'select_last_index' is not supported; re-export the "
                    "model without it, or open an issue with this model");
  expect_user_error(
      [&] { export_node("ArgMin", {{"axis", int64_t{0}}, {"select_last_index", int64_t{1}}}, {x}, 11); },
      "node 'n' (ArgMin): select_last_index needs opset 12 or newer; export with opset >= 12");
}

TEST(ExtraReduce, HardmaxMarksTheFirstMaximum) {
  Tensor x = Tensor::f32({2, 2, 2}, {1, 4, 4, 2, 0, 0, 1, 0});
  expect_f32_near(run1("Hardmax", {{"axis", int64_t{2}}}, {x}), {2, 2, 2}, {0, 1, 1, 0, 1, 0, 1, 0});
  expect_f32_near(run1("Hardmax", {{"axis", int64_t{1}}, {"include_trailing_axes", int64_t{1}}}, {x}), {2, 2, 2},
             {0, 1, 0, 0, 0, 0, 1, 0});
  Attributes single{{"axis", int64_t{1}}, {"include_trailing_axes", int64_t{0}}};
  EXPECT_EQ(exported_ops(export_node("Hardmax", single, {{DType::f32, {2, 2, 2}}}, 11)),
            (std::vector<std::string>{"Transpose", "Hardmax", "Transpose"}));
  Attributes coerced{{"axis", int64_t{1}}, {"include_trailing_axes", int64_t{1}}};
  EXPECT_EQ(exported_ops(export_node("Hardmax", coerced, {{DType::f32, {2, 2, 2}}}, 13)),
            (std::vector<std::string>{"Flatten", "Hardmax", "Shape", "Reshape"}));
}

// ---------------------------------------------------------------- normalization

TEST(ExtraNormalization, InstanceNormalizationPerSampleAndChannel) {
  Tensor x = Tensor::f32({1, 2, 2}, {1, 3, 4, 6});
  Tensor scale = Tensor::f32({2}, {2, 1}), bias = Tensor::f32({2}, {1, 0});
  expect_f32_near(run1("InstanceNormalization", {{"epsilon", 0.0}}, {x, scale, bias}), {1, 2, 2}, {-1, 3, -1, 1});
  expect_user_error(
      [] {
        add_node_on("InstanceNormalization", {}, {{DType::f32, {1, 2, 2}}, {DType::f32, {3}}, {DType::f32, {2}}});
      },
      "node 'n' (InstanceNormalization): scale must have shape 2 (one value per channel), got 3");
}

TEST(ExtraNormalization, LrnSumsSquaresOverNeighbouringChannels) {
  Tensor x = Tensor::f32({1, 3, 1}, {1, 2, 3});
  // size 2: channel c sees c-0..c+1 (floor/ceil of 1/2), so squares are 5, 13, 9.
  Tensor y = run1("LRN", {{"size", int64_t{2}}, {"alpha", 2.0}, {"beta", 1.0}, {"bias", 1.0}}, {x});
  expect_f32_near(y, {1, 3, 1}, {1.0f / 6, 2.0f / 14, 3.0f / 10});
  expect_user_error([] { add_node_on("LRN", {{"size", int64_t{0}}}, {{DType::f32, {1, 3, 1}}}); },
                    "node 'n' (LRN): size must be at least 1, got 0");
}

TEST(ExtraNormalization, MeanVarianceNormalizationOverListedAxes) {
  Tensor x = Tensor::f32({2, 2}, {1, 3, 2, 2});
  expect_f32_near(run1("MeanVarianceNormalization", {{"axes", std::vector<int64_t>{1}}}, {x}), {2, 2}, {-1, 1, 0, 0});
  EXPECT_EQ(import_node(FakeImportNode("MeanVarianceNormalization", 13, {}, {TensorType{DType::f32, {1, 2, 3, 4}}}))
                .attrs,
            (Attributes{{"axes", std::vector<int64_t>{0, 2, 3}}}));
}

TEST(ExtraNormalization, LayerNormalizationStatisticsOutputs) {
  Tensor x = Tensor::f32({2, 2}, {1, 3, 2, 6});
  std::vector<Tensor> outputs = run_op("LayerNormalization", {{"with_statistics", int64_t{1}}, {"epsilon", 0.0}},
                                       {x, Tensor::f32({2}, {1, 1})});
  ASSERT_EQ(outputs.size(), 3u);
  expect_f32_near(outputs[0], {2, 2}, {-1, 1, -1, 1});
  expect_f32_near(outputs[1], {2, 1}, {2, 4});
  expect_f32_near(outputs[2], {2, 1}, {1, 0.5f});
  TensorType x_type{DType::f32, {2, 2}}, scale{DType::f32, {2}};
  EXPECT_EQ(import_node(FakeImportNode("LayerNormalization", 17, {}, {x_type, scale}, {}, 3)).attrs,
            (Attributes{{"axis", int64_t{1}}, {"epsilon", 1e-5}, {"with_statistics", int64_t{1}}}));
  FakeExportNode out = export_node("LayerNormalization", {{"with_statistics", int64_t{1}}}, {x_type, scale}, 17);
  ASSERT_EQ(out.nodes.size(), 1u);
  EXPECT_EQ(out.nodes[0].outputs.size(), 3u);
  EXPECT_FALSE(out.nodes[0].attrs.has("with_statistics"));
}

TEST(ExtraNormalization, LayerNormalizationStatisticsSurviveAnOnnxFile) {
  Graph graph;
  graph.opset = 17;
  ValueId x = graph.add_input("x", {DType::f32, {2, 3}});
  ValueId scale = graph.add_constant("scale", Tensor::f32({3}, {1, 2, 3}));
  graph.set_outputs(graph.add_node("LayerNormalization", {{"with_statistics", int64_t{1}}}, {x, scale}, "ln"));
  Graph back = through_onnx_file(graph, "pet_extra_layer_norm.onnx");
  Tensor input = Tensor::f32({2, 3}, {1, 2, 3, -1, 0, 4});
  std::vector<Tensor> want = execute(graph, {input}), got = execute(back, {input});
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(want[i].same_content(got[i])) << "output " << i;
}

}  // namespace
}  // namespace pet::test
