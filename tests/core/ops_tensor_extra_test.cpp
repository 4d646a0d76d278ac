// The indexing, scatter, block-layout and selection ops (ScatterND, ScatterElements,
// GatherElements, GatherND, Trilu, OneHot, TopK, CumSum, EyeLike, ReverseSequence, DepthToSpace,
// SpaceToDepth) and the MaxPool Indices / Resize cubic and crop extensions: before -> after values
// on tiny graphs, ONNX import canonicalization, export -> import through ONNX files, exact errors.
#include <algorithm>

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

using Ints = std::vector<int64_t>;
using Floats = std::vector<double>;

void expect_near(const Tensor& got, const std::vector<float>& want) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.f32()[i], want[i], 1e-5) << "element " << i;
}

Attributes reduction(const std::string& name) { return {{"reduction", name}}; }

// ---------------------------------------------------------------- ScatterND

TEST(TensorScatterND, ReplacesAddsOrMultipliesAtIndexTuples) {
  Tensor data = Tensor::f32({4}, {1, 2, 3, 4}), indices = Tensor::i64({2, 1}, {1, 3});
  Tensor updates = Tensor::f32({2}, {10, 20});
  expect_f32(run1("ScatterND", {}, {data, indices, updates}), {4}, {1, 10, 3, 20});
  expect_f32(run1("ScatterND", reduction("add"), {data, indices, updates}), {4}, {1, 12, 3, 24});
  expect_f32(run1("ScatterND", reduction("mul"), {data, indices, updates}), {4}, {1, 20, 3, 80});
}

TEST(TensorScatterND, ShortTuplesReplaceWholeSlices) {
  expect_f32(run1("ScatterND", {}, {iota({2, 2}), Tensor::i64({1, 1}, {-1}), Tensor::f32({1, 2}, {5, 6})}), {2, 2},
             {0, 1, 5, 6});
  expect_i64(run1("ScatterND", reduction("add"),
                  {Tensor::i64({2, 2}, {1, 1, 1, 1}), Tensor::i64({2, 2}, {0, 1, 0, 1}), Tensor::i64({2}, {3, 4})}),
             {2, 2}, {1, 8, 1, 1});
}

TEST(TensorScatterND, UpdatesOfTheWrongShapeAreAUserError) {
  expect_user_error([] { add_node_on("ScatterND", {}, {{DType::f32, {4}}, {DType::i64, {2, 1}}, {DType::f32, {3}}}); },
                    "node 'n' (ScatterND): updates shape 3 must be 2 (indices without its last axis, then the data "
                    "axes after the indexed ones)");
}

TEST(TensorScatterND, UnknownReductionIsAUserError) {
  expect_user_error(
      [] {
        add_node_on("ScatterND", reduction("xor"), {{DType::f32, {4}}, {DType::i64, {2, 1}}, {DType::f32, {2}}});
      },
      "node 'n' (ScatterND): reduction 'xor' is unknown; the reductions are none, add, mul, max and min");
}

TEST(TensorScatterND, OutOfRangeIndexIsAUserError) {
  expect_user_error(
      [] { run1("ScatterND", {}, {iota({4}), Tensor::i64({1, 1}, {4}), Tensor::f32({1}, {1})}); },
      "ScatterND: index 4 is out of range for an axis of size 4");
}

// ---------------------------------------------------------------- ScatterElements / GatherElements

TEST(TensorScatterElements, WritesEachUpdateAtItsIndexAlongTheAxis) {
  expect_f32(run1("ScatterElements", {}, {Tensor::f32({2, 3}, {0, 0, 0, 0, 0, 0}), Tensor::i64({1, 3}, {1, 0, 1}),
                                          Tensor::f32({1, 3}, {1, 2, 3})}),
             {2, 3}, {0, 2, 0, 1, 0, 3});
  expect_f32(run1("ScatterElements", {{"axis", int64_t{1}}},
                  {Tensor::f32({1, 5}, {1, 2, 3, 4, 5}), Tensor::i64({1, 2}, {1, -2}), Tensor::f32({1, 2}, {10, 20})}),
             {1, 5}, {1, 10, 3, 20, 5});
}

TEST(TensorScatterElements, AddAccumulatesDuplicateIndices) {
  Attributes attrs{{"axis", int64_t{1}}, {"reduction", std::string("add")}};
  expect_f32(run1("ScatterElements", attrs,
                  {Tensor::f32({1, 5}, {1, 2, 3, 4, 5}), Tensor::i64({1, 2}, {1, 1}), Tensor::f32({1, 2}, {1.5, 2.5})}),
             {1, 5}, {1, 6, 3, 4, 5});
}

TEST(TensorScatterElements, IndicesLargerThanDataAreAUserError) {
  expect_user_error(
      [] { add_node_on("ScatterElements", {}, {{DType::f32, {2, 2}}, {DType::i64, {1, 3}}, {DType::f32, {1, 3}}}); },
      "node 'n' (ScatterElements): indices 1x3 do not fit inside data 2x2 off axis 0");
}

TEST(TensorGatherElements, PicksAlongTheAxisPerElement) {
  expect_f32(run1("GatherElements", {{"axis", int64_t{1}}},
                  {Tensor::f32({2, 2}, {1, 2, 3, 4}), Tensor::i64({2, 2}, {0, 0, 1, 0})}),
             {2, 2}, {1, 1, 4, 3});
  expect_f32(run1("GatherElements", {}, {iota({3, 3}), Tensor::i64({2, 3}, {-1, 0, 2, 1, 2, 0})}), {2, 3},
             {6, 1, 8, 3, 7, 2});
}

TEST(TensorGatherElements, FloatIndicesAreAUserError) {
  expect_user_error([] { add_node_on("GatherElements", {}, {{DType::f32, {2, 2}}, {DType::f32, {2, 2}}}); },
                    "node 'n' (GatherElements): indices must be i32 or i64, got f32[2,2]; cast them to i64");
}

// ---------------------------------------------------------------- GatherND

TEST(TensorGatherND, PicksElementsOrSlicesByTuple) {
  expect_f32(run1("GatherND", {}, {iota({2, 2}), Tensor::i64({2, 2}, {1, 0, 0, 1})}), {2}, {2, 1});
  expect_f32(run1("GatherND", {}, {iota({2, 2}), Tensor::i64({2, 1}, {1, 0})}), {2, 2}, {2, 3, 0, 1});
}

TEST(TensorGatherND, BatchDimsIndexEachBatchSeparately) {
  expect_f32(run1("GatherND", {{"batch_dims", int64_t{1}}}, {iota({2, 2, 2}), Tensor::i64({2, 1}, {1, 0})}), {2, 2},
             {2, 3, 4, 5});
}

TEST(TensorGatherND, TooLongTuplesAreAUserError) {
  expect_user_error([] { add_node_on("GatherND", {}, {{DType::f32, {2, 2}}, {DType::i64, {1, 3}}}); },
                    "node 'n' (GatherND): the last axis of indices 1x3 must have between 1 and 2 entries");
}

// ---------------------------------------------------------------- Trilu, OneHot, CumSum, EyeLike

TEST(TensorTrilu, KeepsATriangleAroundTheShiftedDiagonal) {
  Tensor x = Tensor::f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  expect_f32(run1("Trilu", {}, {x}), {3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9});
  expect_f32(run1("Trilu", {{"upper", int64_t{0}}, {"k", int64_t{-1}}}, {x}), {3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0});
  expect_i64(run1("Trilu", {{"k", int64_t{2}}}, {Tensor::i64({2, 3}, {1, 2, 3, 4, 5, 6})}), {2, 3}, {0, 0, 3, 0, 0, 0});
}

TEST(TensorOneHot, SetsTheOnValueAtEachIndex) {
  Attributes attrs{{"axis", int64_t{1}}, {"depth", int64_t{3}}};
  expect_f32(run1("OneHot", attrs, {Tensor::i64({4}, {0, 2, -1, 5}), Tensor::f32({2}, {0, 1})}), {4, 3},
             {1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0});
  attrs.set("wrap_negative", int64_t{0});
  attrs.set("axis", int64_t{0});
  expect_f32(run1("OneHot", attrs, {Tensor::f32({2}, {1.7f, -1}), Tensor::f32({2}, {-1, 2})}), {3, 2},
             {-1, -1, 2, -1, -1, -1});
}

TEST(TensorOneHot, ValuesNeedTwoEntries) {
  expect_user_error(
      [] { add_node_on("OneHot", {{"axis", int64_t{1}}, {"depth", int64_t{3}}}, {{DType::i64, {2}}, {DType::f32, {3}}}); },
      "node 'n' (OneHot): values f32[3] must hold two entries: [off, on]");
}

TEST(TensorCumSum, RunsForwardBackwardInclusiveOrExclusive) {
  Tensor x = Tensor::f32({3}, {1, 2, 3});
  expect_f32(run1("CumSum", {{"axis", int64_t{0}}}, {x}), {3}, {1, 3, 6});
  expect_f32(run1("CumSum", {{"axis", int64_t{0}}, {"exclusive", int64_t{1}}}, {x}), {3}, {0, 1, 3});
  expect_f32(run1("CumSum", {{"axis", int64_t{0}}, {"reverse", int64_t{1}}}, {x}), {3}, {6, 5, 3});
  expect_i64(run1("CumSum", {{"axis", int64_t{1}}, {"reverse", int64_t{1}}, {"exclusive", int64_t{1}}},
                  {Tensor::i64({2, 2}, {1, 2, 3, 4})}),
             {2, 2}, {2, 0, 4, 0});
}

TEST(TensorEyeLike, PutsOnesOnTheShiftedDiagonal) {
  expect_f32(run1("EyeLike", {{"dtype", std::string("f32")}, {"k", int64_t{1}}}, {Tensor::i64({2, 3}, {0, 0, 0, 0, 0, 0})}),
             {2, 3}, {0, 1, 0, 0, 0, 1});
  expect_i64(run1("EyeLike", {{"dtype", std::string("i64")}, {"k", int64_t{-1}}}, {iota({3, 2})}), {3, 2},
             {0, 0, 1, 0, 0, 1});
}

TEST(TensorReverseSequence, ReversesThePrefixOfEachSequence) {
  expect_f32(run1("ReverseSequence", {}, {iota({3, 2}), Tensor::i64({2}, {3, 1})}), {3, 2}, {4, 1, 2, 3, 0, 5});
  expect_f32(run1("ReverseSequence", {{"batch_axis", int64_t{0}}, {"time_axis", int64_t{1}}},
                  {iota({2, 3}), Tensor::i64({2}, {2, 0})}),
             {2, 3}, {1, 0, 2, 3, 4, 5});
}

// ---------------------------------------------------------------- TopK

TEST(TensorTopK, SelectsLargestOrSmallestWithStableTies) {
  Tensor x = Tensor::f32({1, 4}, {1, 3, 2, 3});
  std::vector<Tensor> largest = run_op("TopK", {{"axis", int64_t{1}}, {"k", int64_t{2}}}, {x});
  expect_f32(largest[0], {1, 2}, {3, 3});
  expect_i64(largest[1], {1, 2}, {1, 3});
  std::vector<Tensor> smallest = run_op("TopK", {{"k", int64_t{2}}, {"largest", int64_t{0}}}, {x});
  expect_f32(smallest[0], {1, 2}, {1, 2});
  expect_i64(smallest[1], {1, 2}, {0, 2});
  std::vector<Tensor> columns = run_op("TopK", {{"axis", int64_t{0}}, {"k", int64_t{1}}}, {Tensor::i64({2, 2}, {1, 4, 3, 2})});
  expect_i64(columns[0], {1, 2}, {3, 4});
  expect_i64(columns[1], {1, 2}, {1, 0});
}

TEST(TensorTopK, KLargerThanTheAxisIsAUserError) {
  expect_user_error([] { add_node_on("TopK", {{"k", int64_t{5}}}, {{DType::f32, {2, 4}}}); },
                    "node 'n' (TopK): k 5 must be in [0, 4] (axis 1 of 2x4)");
}

// ---------------------------------------------------------------- DepthToSpace / SpaceToDepth

TEST(TensorDepthToSpace, DcrAndCrdOrderChannelsDifferently) {
  Tensor x = iota({1, 8, 1, 1});
  expect_f32(run1("DepthToSpace", {{"blocksize", int64_t{2}}}, {x}), {1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
  expect_f32(run1("DepthToSpace", {{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}, {x}), {1, 2, 2, 2},
             {0, 1, 2, 3, 4, 5, 6, 7});
}

TEST(TensorSpaceToDepth, MovesBlocksIntoChannelsAndUndoesDcr) {
  expect_f32(run1("SpaceToDepth", {{"blocksize", int64_t{2}}}, {iota({1, 1, 2, 4})}), {1, 4, 1, 2},
             {0, 2, 1, 3, 4, 6, 5, 7});
  Tensor x = Tensor::random_f32({2, 8, 2, 3}, 5);
  Tensor spread = run1("DepthToSpace", {{"blocksize", int64_t{2}}}, {x});
  EXPECT_TRUE(run1("SpaceToDepth", {{"blocksize", int64_t{2}}}, {spread}).same_content(x));
}

TEST(TensorDepthToSpace, ChannelsNotDivisibleByTheBlockAreAUserError) {
  expect_user_error([] { add_node_on("DepthToSpace", {{"blocksize", int64_t{2}}}, {{DType::f32, {1, 6, 2, 2}}}); },
                    "node 'n' (DepthToSpace): channels 6 are not divisible by blocksize^2 = 4");
  expect_user_error([] { add_node_on("SpaceToDepth", {{"blocksize", int64_t{2}}}, {{DType::f32, {1, 1, 3, 2}}}); },
                    "node 'n' (SpaceToDepth): height and width of 1x1x3x2 are not divisible by blocksize 2");
}

TEST(TensorDepthToSpace, IsAJointlyLinearLayoutOnlyOp) {
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    const OpDef& def = OpRegistry::global().get(op);
    EXPECT_TRUE(def.traits.layout_only) << op;
    EXPECT_EQ(def.traits.linearity, Linearity::Joint) << op;
  }
}

// ---------------------------------------------------------------- MaxPool indices, Resize cubic / crop

TEST(TensorMaxPoolIndices, FlattenedPositionsRowOrColumnMajor) {
  Attributes attrs{{"kernel_shape", Ints{2, 2}}, {"strides", Ints{1, 1}}, {"pads", Ints{0, 0, 0, 0}},
                   {"dilations", Ints{1, 1}}, {"with_indices", int64_t{1}}};
  Tensor x = Tensor::f32({2, 1, 2, 3}, {1, 5, 2, 4, 3, 6, 9, 0, 0, 0, 0, 8});
  std::vector<Tensor> row = run_op("MaxPool", attrs, {x});
  expect_f32(row[0], {2, 1, 1, 2}, {5, 6, 9, 8});
  expect_i64(row[1], {2, 1, 1, 2}, {1, 5, 6, 11});
  attrs.set("storage_order", int64_t{1});
  expect_i64(run_op("MaxPool", attrs, {x})[1], {2, 1, 1, 2}, {2, 5, 6, 11});
}

Attributes resize_attrs(const std::string& mode, const std::string& coordinates, Floats scales, Ints sizes) {
  return {{"mode", mode}, {"coordinate_transformation_mode", coordinates}, {"scales", scales}, {"sizes", sizes}};
}

TEST(TensorResizeCubic, InterpolatesWithTheCubicKernel) {
  Attributes attrs = resize_attrs("cubic", "asymmetric", {1, 1, 1, 2}, {1, 1, 1, 8});
  Tensor x = Tensor::f32({1, 1, 1, 4}, {0, 1, 2, 3});
  // x = 0.5 reads taps [0, 0, 1, 2] (clamped) with weights [-0.09375, 0.59375, 0.59375, -0.09375].
  expect_near(run1("Resize", attrs, {x}), {0, 0.40625f, 1, 1.5f, 2, 2.59375f, 3, 3.09375f});
  attrs.set("exclude_outside", int64_t{1});  // the tap at -1 drops out; the rest are renormalized
  Tensor excluded = run1("Resize", attrs, {x});
  EXPECT_NEAR(excluded.f32()[1], 0.40625 / 1.09375, 1e-6);
  EXPECT_NEAR(excluded.f32()[3], 1.5, 1e-6);
}

TEST(TensorResizeCrop, ReadsTheRoiAndExtrapolatesOutsideIt) {
  Attributes attrs = resize_attrs("linear", "tf_crop_and_resize", {1, 1, 1, 1}, {1, 1, 1, 3});
  attrs.set("roi", Floats{0, 0, 0, 0.25, 1, 1, 1, 1.25});
  attrs.set("extrapolation_value", 99.0);
  expect_f32(run1("Resize", attrs, {Tensor::f32({1, 1, 1, 3}, {0, 10, 20})}), {1, 1, 1, 3}, {5, 15, 99});
  EXPECT_FALSE(OpRegistry::global().get("Resize").traits.linear_when(complete_attributes(
      OpRegistry::global().get("Resize"), attrs)));
}

TEST(TensorResizeCrop, CropWithoutRoiIsAUserError) {
  expect_user_error(
      [] { add_node_on("Resize", resize_attrs("linear", "tf_crop_and_resize", {1, 1}, {2, 2}), {{DType::f32, {2, 2}}}); },
      "node 'n' (Resize): tf_crop_and_resize needs a roi");
}

// ---------------------------------------------------------------- ONNX import

TensorType f32(Shape shape) { return {DType::f32, std::move(shape)}; }
TensorType i64(Shape shape) { return {DType::i64, std::move(shape)}; }

TEST(TensorExtraImport, ConstantInputsBecomeAttributes) {
  OnnxImported trilu =
      import_node(FakeImportNode("Trilu", 14, {{"upper", int64_t{0}}}, {f32({3, 3}), std::nullopt}, {{1, Tensor::scalar_i64(-1)}}));
  EXPECT_EQ(trilu.attrs, (Attributes{{"upper", int64_t{0}}, {"k", int64_t{-1}}}));
  EXPECT_EQ(trilu.inputs, (std::vector<int>{0}));
  OnnxImported one_hot = import_node(FakeImportNode("OneHot", 11, {}, {i64({2}), std::nullopt, f32({2})},
                                                    {{1, Tensor::scalar_f32(4)}}));
  EXPECT_EQ(one_hot.attrs, (Attributes{{"axis", int64_t{1}}, {"depth", int64_t{4}}, {"wrap_negative", int64_t{1}}}));
  EXPECT_EQ(one_hot.inputs, (std::vector<int>{0, 2}));
  OnnxImported top_k = import_node(FakeImportNode("TopK", 9, {{"k", int64_t{2}}}, {f32({3, 4})}, {}, 2));
  EXPECT_EQ(top_k.attrs, (Attributes{{"axis", int64_t{1}}, {"k", int64_t{2}}, {"largest", int64_t{1}}}));
  OnnxImported cum_sum = import_node(
      FakeImportNode("CumSum", 14, {{"reverse", int64_t{1}}}, {f32({2, 3}), std::nullopt}, {{1, Tensor::scalar_i64(-1)}}));
  EXPECT_EQ(cum_sum.attrs, (Attributes{{"axis", int64_t{1}}, {"exclusive", int64_t{0}}, {"reverse", int64_t{1}}}));
}

TEST(TensorExtraImport, LegacyFormsCanonicalize) {
  OnnxImported scatter = import_node(FakeImportNode("Scatter", 10, {{"axis", int64_t{-1}}}, {f32({2, 3}), i64({2, 1}), f32({2, 1})}));
  EXPECT_EQ(scatter.op, "ScatterElements");
  EXPECT_EQ(scatter.attrs, (Attributes{{"axis", int64_t{1}}, {"reduction", std::string("none")}}));
  OnnxImported one_hot = import_node(FakeImportNode("OneHot", 9, {{"axis", int64_t{0}}}, {i64({2}), std::nullopt, f32({2})},
                                                    {{1, Tensor::scalar_i64(3)}}));
  EXPECT_EQ(one_hot.attrs.get_int("wrap_negative"), 0);
  OnnxImported depth = import_node(FakeImportNode("DepthToSpace", 9, {{"blocksize", int64_t{2}}}, {f32({1, 4, 1, 1})}));
  EXPECT_EQ(depth.attrs, (Attributes{{"blocksize", int64_t{2}}, {"mode", std::string("DCR")}}));
  OnnxImported eye = import_node(FakeImportNode("EyeLike", 9, {{"dtype", int64_t{7}}}, {f32({2, 2})}));
  EXPECT_EQ(eye.attrs, (Attributes{{"dtype", std::string("i64")}, {"k", int64_t{0}}}));
}

TEST(TensorExtraImport, ResizeCubicAndCropOptionsAreExplicit) {
  OnnxImported cubic = import_node(FakeImportNode(
      "Resize", 13, {{"mode", std::string("cubic")}, {"cubic_coeff_a", -0.5}, {"exclude_outside", int64_t{1}}},
      {f32({1, 1, 2, 2}), std::nullopt, std::nullopt}, {{2, Tensor::f32({4}, {1, 1, 2, 2})}}));
  EXPECT_EQ(cubic.attrs.get_float("cubic_coeff_a"), -0.5);
  EXPECT_EQ(cubic.attrs.get_int("exclude_outside"), 1);
  EXPECT_EQ(cubic.attrs.get_floats("roi"), Floats{});
  OnnxImported linear = import_node(FakeImportNode(
      "Resize", 13, {{"mode", std::string("linear")}, {"exclude_outside", int64_t{1}}, {"extrapolation_value", 3.0}},
      {f32({1, 1, 2, 2}), std::nullopt, std::nullopt}, {{2, Tensor::f32({4}, {1, 1, 2, 2})}}));
  EXPECT_EQ(linear.attrs.get_int("exclude_outside"), 0);  // no effect outside cubic: canonical defaults
  EXPECT_EQ(linear.attrs.get_float("extrapolation_value"), 0.0);
  OnnxImported crop = import_node(FakeImportNode(
      "Resize", 13, {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                     {"extrapolation_value", 3.0}},
      {f32({1, 4}), std::nullopt, std::nullopt, std::nullopt},
      {{1, Tensor::f32({4}, {0, 0.25f, 1, 0.75f})}, {3, Tensor::i64({2}, {1, 2})}}));
  EXPECT_EQ(crop.attrs.get_floats("roi"), (Floats{0, 0.25, 1, 0.75}));
  EXPECT_EQ(crop.attrs.get_float("extrapolation_value"), 3.0);
  EXPECT_EQ(crop.inputs, (std::vector<int>{0}));
}

TEST(TensorExtraImport, UnsupportedFormsAreUserErrors) {
  expect_user_error(
      [] {
        import_node(FakeImportNode("ScatterND", 18, {{"reduction", std::string("xor")}},
                                   {f32({4}), i64({1, 1}), f32({1})}));
      },
      "node 'n' (ScatterND, opset 18): reduction 'xor' is not supported; re-export the model without it, or open an "
      "issue with this model");
  expect_user_error([] { import_node(FakeImportNode("TopK", 11, {}, {f32({4}), i64({1})}, {}, 2)); },
                    "node 'n' (TopK, opset 11): input 1 (k) must be a constant; fold it");
  expect_user_error(
      [] {
        import_node(FakeImportNode("DepthToSpace", 13, {{"blocksize", int64_t{2}}, {"mode", std::string("XYZ")}},
                                   {f32({1, 4, 1, 1})}));
      },
      "node 'n' (DepthToSpace, opset 13): mode 'XYZ' is not supported; re-export the model without it, or open an "
      "issue with this model");
}

// ---------------------------------------------------------------- ONNX export

TEST(TensorExtraExport, OpsNewerThanTheOpsetAreUserErrors) {
  Graph graph;
  ValueId x = graph.add_input("x", f32({3, 3}));
  graph.add_node1("Trilu", {}, {x}, "n");
  FakeExportNode out(13, {f32({3, 3})});
  expect_user_error([&] { graph.nodes()[0].def->to_onnx(graph.nodes()[0], out); },
                    "node 'n' (Trilu): Trilu needs opset 14 or later, exporting at opset 13; export at a newer opset");
  graph.add_node1("ScatterND", reduction("add"), {x, graph.add_input("i", i64({1, 1})), graph.add_input("u", f32({1, 3}))},
                  "s");
  FakeExportNode scatter(13, {});
  expect_user_error([&] { graph.nodes()[1].def->to_onnx(graph.nodes()[1], scatter); },
                    "node 's' (ScatterND): reduction 'add' needs opset 16 or later, exporting at opset 13; export at a "
                    "newer opset");
}

// Every new op of this file, valid at `opset`.
Graph extra_graph(int opset) {
  Graph graph;
  graph.opset = opset;
  ValueId x = graph.add_input("x", f32({1, 8, 2, 2}));
  ValueId m = graph.add_input("m", f32({4, 4}));
  ValueId tuples = graph.add_input("tuples", i64({2, 1}));
  ValueId positions = graph.add_input("positions", i64({4, 4}));
  ValueId lengths = graph.add_input("lengths", i64({4}));
  ValueId rows = graph.add_input("rows", i64({4, 1}));
  ValueId updates = graph.add_constant("updates", Tensor::random_f32({2, 4}, 3));
  auto node = [&](const std::string& op, Attributes attrs, std::vector<ValueId> inputs) {
    return graph.add_node1(op, std::move(attrs), std::move(inputs));
  };
  std::string scatter_reduction = opset >= 16 ? "mul" : "none";
  std::vector<ValueId> outputs{
      node("SpaceToDepth", {{"blocksize", int64_t{2}}}, {node("DepthToSpace", {{"blocksize", int64_t{2}}}, {x})}),
      node("DepthToSpace", {{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}, {x}),
      node("ScatterND", reduction(scatter_reduction), {m, tuples, updates}),
      node("ScatterElements", {{"axis", int64_t{1}}}, {m, positions, m}),
      node("GatherElements", {{"axis", int64_t{0}}}, {m, positions}),
      node("GatherND", {{"batch_dims", int64_t{opset >= 12 ? 1 : 0}}}, {m, rows}),
      node("OneHot", {{"axis", int64_t{0}}, {"depth", int64_t{5}}}, {lengths, graph.add_constant("v", Tensor::f32({2}, {-1, 1}))}),
      node("CumSum", {{"axis", int64_t{1}}, {"exclusive", int64_t{1}}}, {m}),
      node("EyeLike", {{"dtype", std::string("f32")}, {"k", int64_t{1}}}, {m}),
      node("ReverseSequence", {}, {m, lengths}),
      node("Resize", {{"mode", std::string("cubic")}, {"scales", Floats{1, 1, 2, 2}}, {"sizes", Ints{1, 8, 4, 4}},
                      {"cubic_coeff_a", -0.5}, {"exclude_outside", int64_t{1}}},
           {x})};
  for (ValueId out : graph.add_node("TopK", {{"axis", int64_t{1}}, {"k", int64_t{2}}, {"largest", int64_t{0}}}, {m})) outputs.push_back(out);
  for (ValueId out : graph.add_node("MaxPool", {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{1, 1}}, {"pads", Ints{0, 0, 1, 1}},
                                                {"dilations", Ints{1, 1}}, {"with_indices", int64_t{1}}, {"storage_order", int64_t{1}}},
                                    {x}))
    outputs.push_back(out);
  if (opset >= 14) outputs.push_back(node("Trilu", {{"upper", int64_t{0}}, {"k", int64_t{1}}}, {m}));
  graph.set_outputs(outputs);
  graph.validate();
  return graph;
}

TEST(TensorExtraOnnxFile, EveryOpSurvivesExportAndImportAtEachOpset) {
  for (int opset : {11, 13, 16, 17}) {
    Graph graph = extra_graph(opset);
    Graph back = through_onnx_file(graph, fmt::format("pet_tensor_extra_{}.onnx", opset));
    std::vector<Tensor> inputs{Tensor::random_f32({1, 8, 2, 2}, 1), Tensor::random_f32({4, 4}, 2),
                               Tensor::i64({2, 1}, {3, -4}), Tensor::i64({4, 4}, {0, 1, 2, 3, 3, 2, 1, 0, -1, -2, 0, 1, 2, 2, 2, 2}),
                               Tensor::i64({4}, {4, 0, 2, 1}), Tensor::i64({4, 1}, {2, -1, 0, 3})};
    std::vector<Tensor> want = execute(graph, inputs), got = execute(back, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(got[i].same_content(want[i])) << "output " << i << " at opset " << opset;
    for (const Node& node : graph.nodes()) {  // every node comes back with its canonical attributes
      if (node.op() == "EyeLike") continue;   // type-only: folded on import
      bool found = std::any_of(back.nodes().begin(), back.nodes().end(),
                               [&](const Node& other) { return other.op() == node.op() && other.attrs == node.attrs; });
      EXPECT_TRUE(found) << node.op() << " at opset " << opset;
    }
  }
}

}  // namespace
}  // namespace pet::test
