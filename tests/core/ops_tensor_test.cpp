// Shape, layout, indexing and constant-producing ops: before -> after values on tiny graphs,
// the Layout builders, ONNX import canonicalization, export round trips and exact error messages.
#include <limits>
#include <map>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/graph.h"
#include "core/onnx_mapping.h"
#include "core/ops/layout.h"
#include "core/registry.h"
#include "tests/core/fake_onnx_node.h"
#include "tests/core/op_test_util.h"

namespace pet::test {
namespace {

using ops::layout_attrs;
using Ints = std::vector<int64_t>;

// ---------------------------------------------------------------- Concat / Split

TEST(TensorConcat, JoinsAlongAxisOne) {
  expect_f32(run1("Concat", {{"axis", int64_t{1}}}, {Tensor::f32({2, 1}, {1, 2}), Tensor::f32({2, 2}, {3, 4, 5, 6})}),
             {2, 3}, {1, 3, 4, 2, 5, 6});
}

TEST(TensorConcat, JoinsI64ShapeVectorsWithNegativeAxis) {
  expect_i64(run1("Concat", {{"axis", int64_t{-1}}}, {Tensor::i64({1}, {7}), Tensor::i64({2}, {-1, 64})}), {3},
             {7, -1, 64});
}

TEST(TensorConcat, RankMismatchIsAUserError) {
  expect_user_error([] { add_node_on("Concat", {{"axis", int64_t{0}}}, {{DType::f32, {2, 2}}, {DType::f32, {2}}}); },
                    "node 'n' (Concat): input 1 has rank 1, input 0 has rank 2");
}

TEST(TensorConcat, OffAxisMismatchIsAUserError) {
  expect_user_error(
      [] { add_node_on("Concat", {{"axis", int64_t{0}}}, {{DType::f32, {2, 2}}, {DType::f32, {2, 3}}}); },
      "node 'n' (Concat): input 1 has shape 2x3, which differs from input 0's 2x2 outside axis 0");
}

TEST(TensorSplit, CutsIntoExplicitSizes) {
  auto outputs = run_op("Split", {{"axis", int64_t{1}}, {"split", Ints{1, 2}}}, {iota({2, 3})});
  ASSERT_EQ(outputs.size(), 2u);
  expect_f32(outputs[0], {2, 1}, {0, 3});
  expect_f32(outputs[1], {2, 2}, {1, 2, 4, 5});
}

TEST(TensorSplit, SizesThatDoNotCoverTheAxisAreAUserError) {
  expect_user_error([] { add_node_on("Split", {{"axis", int64_t{0}}, {"split", Ints{2, 2}}}, {{DType::f32, {5}}}); },
                    "node 'n' (Split): split sizes [2, 2] add up to 4, but axis 0 of 5 has size 5");
}

// ---------------------------------------------------------------- Slice

TEST(TensorSlice, StepsThroughBothAxes) {
  Attributes attrs{{"starts", Ints{1, 0}}, {"ends", Ints{3, 4}}, {"steps", Ints{1, 2}}};
  expect_f32(run1("Slice", attrs, {iota({3, 4})}), {2, 2}, {4, 6, 8, 10});
}

TEST(TensorSlice, NegativeStepReversesDownToIndexZero) {
  Attributes attrs{{"starts", Ints{3}}, {"ends", Ints{-1}}, {"steps", Ints{-2}}};
  expect_i64(run1("Slice", attrs, {Tensor::i64({4}, {10, 11, 12, 13})}), {2}, {13, 11});
}

TEST(TensorSlice, NonCanonicalBoundsAreAUserError) {
  expect_user_error(
      [] {
        add_node_on("Slice", {{"starts", Ints{-1}}, {"ends", Ints{4}}, {"steps", Ints{1}}}, {{DType::f32, {4}}});
      },
      "node 'n' (Slice): axis 0 of size 4: start -1 / end 4 with step 1 are outside the canonical (clamped, "
      "non-negative) range");
}

// ---------------------------------------------------------------- Pad

TEST(TensorPad, ConstantModeFillsWithTheValue) {
  Attributes attrs{{"mode", std::string("constant")}, {"pads", Ints{0, 1, 1, 0}}, {"value", 9.0}};
  expect_f32(run1("Pad", attrs, {iota({1, 2})}), {2, 3}, {9, 0, 1, 9, 9, 9});
}

TEST(TensorPad, EdgeAndReflectModesCopyInputValues) {
  Tensor row = Tensor::i64({3}, {1, 2, 3});
  expect_i64(run1("Pad", {{"mode", std::string("edge")}, {"pads", Ints{2, 1}}}, {row}), {6}, {1, 1, 1, 2, 3, 3});
  expect_i64(run1("Pad", {{"mode", std::string("reflect")}, {"pads", Ints{2, 2}}}, {row}), {7}, {3, 2, 1, 2, 3, 2, 1});
}

TEST(TensorPad, NegativePadsCrop) {
  expect_f32(run1("Pad", {{"pads", Ints{-1, 1}}}, {Tensor::f32({3}, {1, 2, 3})}), {3}, {2, 3, 0});
}

TEST(TensorPad, IsLinearOnlyWithAZeroFill) {
  const OpDef& pad = OpRegistry::global().get("Pad");
  ASSERT_TRUE(pad.traits.linear_when);
  EXPECT_TRUE(pad.traits.linear_when({{"mode", std::string("constant")}, {"value", 0.0}}));
  EXPECT_FALSE(pad.traits.linear_when({{"mode", std::string("constant")}, {"value", 1.0}}));
  EXPECT_TRUE(pad.traits.linear_when({{"mode", std::string("reflect")}, {"value", 1.0}}));
}

TEST(TensorPad, ReflectWiderThanTheAxisIsAUserError) {
  expect_user_error(
      [] { add_node_on("Pad", {{"mode", std::string("reflect")}, {"pads", Ints{3, 0}}}, {{DType::f32, {3}}}); },
      "node 'n' (Pad): reflect pads 3 and 0 of axis 0 must be smaller than its size 3");
}

// ---------------------------------------------------------------- Transpose / Reshape / Flatten

TEST(TensorTranspose, PermutesAxes) {
  expect_f32(run1("Transpose", {{"perm", Ints{1, 0}}}, {iota({2, 3})}), {3, 2}, {0, 3, 1, 4, 2, 5});
}

TEST(TensorTranspose, BadPermIsAUserError) {
  expect_user_error([] { add_node_on("Transpose", {{"perm", Ints{0, 0}}}, {{DType::f32, {2, 3}}}); },
                    "node 'n' (Transpose): perm [0, 0] is not a permutation of 0..1");
}

TEST(TensorReshape, KeepsRowMajorOrder) {
  Tensor out = run1("Reshape", {{"shape", Ints{3, 2}}}, {iota({2, 3})});
  expect_f32(out, {3, 2}, {0, 1, 2, 3, 4, 5});
}

TEST(TensorReshape, ImpossibleShapeIsAUserError) {
  expect_user_error([] { add_node_on("Reshape", {{"shape", Ints{4, 2}}}, {{DType::f32, {2, 3}}}); },
                    "node 'n' (Reshape): cannot reshape 2x3 (6 elements) to 4x2 (8 elements)");
}

TEST(TensorFlatten, CollapsesAroundTheAxis) {
  expect_f32(run1("Flatten", {{"axis", int64_t{2}}}, {iota({1, 2, 2})}), {2, 2}, {0, 1, 2, 3});
  expect_f32(run1("Flatten", {{"axis", int64_t{0}}}, {iota({2, 2})}), {1, 4}, {0, 1, 2, 3});
}

// ---------------------------------------------------------------- Squeeze / Unsqueeze / Expand / Tile

TEST(TensorSqueeze, DropsUnitAxes) {
  expect_f32(run1("Squeeze", {{"axes", Ints{0, -1}}}, {iota({1, 3, 1})}), {3}, {0, 1, 2});
}

TEST(TensorSqueeze, NonUnitAxisIsAUserError) {
  expect_user_error([] { add_node_on("Squeeze", {{"axes", Ints{1}}}, {{DType::f32, {1, 3}}}); },
                    "node 'n' (Squeeze): cannot squeeze axis 1 of 1x3: its size is 3, not 1");
}

TEST(TensorUnsqueeze, InsertsUnitAxesInOutputPositions) {
  expect_bool(run1("Unsqueeze", {{"axes", Ints{0, 2}}}, {Tensor::boolean({2}, {1, 0})}), {1, 2, 1}, {1, 0});
}

TEST(TensorExpand, BroadcastsInBothDirections) {
  expect_f32(run1("Expand", {{"shape", Ints{2, 1}}}, {Tensor::f32({1, 3}, {1, 2, 3})}), {2, 3}, {1, 2, 3, 1, 2, 3});
}

TEST(TensorExpand, IncompatibleShapeIsAUserError) {
  expect_user_error([] { add_node_on("Expand", {{"shape", Ints{4}}}, {{DType::f32, {3}}}); },
                    "node 'n' (Expand): cannot broadcast 3 to 4");
}

TEST(TensorTile, RepeatsWholeAxes) {
  expect_i64(run1("Tile", {{"repeats", Ints{2, 2}}}, {Tensor::i64({1, 2}, {1, 2})}), {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2});
}

// ---------------------------------------------------------------- Gather

TEST(TensorGather, PicksRowsWithNegativeIndices) {
  expect_f32(run1("Gather", {{"axis", int64_t{0}}}, {iota({3, 2}), Tensor::i64({2}, {-1, 0})}), {2, 2},
             {4, 5, 0, 1});
}

TEST(TensorGather, ScalarIndexDropsTheAxis) {
  expect_bool(run1("Gather", {{"axis", int64_t{1}}}, {Tensor::boolean({2, 2}, {1, 0, 0, 1}), Tensor::scalar_i64(1)}),
              {2}, {0, 1});
}

TEST(TensorGather, OutOfRangeIndexIsAUserError) {
  expect_user_error([] { run1("Gather", {}, {iota({3}), Tensor::i64({1}, {3})}); },
                    "Gather: index 3 is out of range for axis 0 of size 3");
}

TEST(TensorGather, FloatIndicesAreAUserError) {
  expect_user_error([] { add_node_on("Gather", {}, {{DType::f32, {3}}, {DType::f32, {1}}}); },
                    "node 'n' (Gather): indices must be i32 or i64, got f32[1]; cast them to i64");
}

// ---------------------------------------------------------------- Shape / Size / ConstantOfShape / Range

TEST(TensorShape, ReportsTheSelectedDimensions) {
  expect_i64(run1("Shape", {{"start", int64_t{1}}, {"end", int64_t{3}}}, {iota({2, 3, 4})}), {2}, {3, 4});
  EXPECT_TRUE(OpRegistry::global().get("Shape").traits.type_only);
}

TEST(TensorSize, CountsElements) { expect_i64(run1("Size", {}, {iota({2, 3})}), {}, {6}); }

TEST(TensorConstantOfShape, FillsWithTheTypedValue) {
  expect_i64(run1("ConstantOfShape", {{"shape", Ints{2}}, {"value", 7.0}, {"dtype", std::string("i64")}}, {}), {2},
             {7, 7});
}

TEST(TensorRange, CountsUpAndDown) {
  expect_f32(run1("Range", {{"start", 1.0}, {"limit", 2.0}, {"delta", 0.25}}, {}), {4}, {1, 1.25f, 1.5f, 1.75f});
  expect_i64(run1("Range", {{"start", 5.0}, {"limit", 0.0}, {"delta", -2.0}, {"dtype", std::string("i64")}}, {}), {3},
             {5, 3, 1});
}

// ---------------------------------------------------------------- Layout

TEST(TensorLayout, TransposeBuilderMatchesTranspose) {
  Tensor input = iota({2, 3, 4});
  Tensor want = run1("Transpose", {{"perm", Ints{2, 0, 1}}}, {input});
  Tensor got = run1("Layout", ops::layout_transpose({2, 3, 4}, {2, 0, 1}), {input});
  EXPECT_TRUE(got.same_content(want));
}

TEST(TensorLayout, BatchToHeightStacksBatchChunksVertically) {
  // Two 1x2x2 images become one 1x4x2 image: image 0 on top of image 1.
  Attributes attrs = ops::layout_batch_to_height({2, 1, 2, 2}, 2);
  EXPECT_EQ(ops::layout_output_shape(attrs), (Shape{1, 1, 4, 2}));
  expect_f32(run1("Layout", attrs, {iota({2, 1, 2, 2})}), {1, 1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
}

TEST(TensorLayout, HeightToBatchCutsRowsIntoBatchChunks) {
  expect_f32(run1("Layout", ops::layout_height_to_batch({1, 1, 4, 1}, 2), {iota({1, 1, 4, 1})}), {2, 1, 2, 1},
             {0, 1, 2, 3});
  expect_f32(run1("Layout", ops::layout_height_to_batch({1, 2, 2, 1}, 2), {iota({1, 2, 2, 1})}), {2, 2, 1, 1},
             {0, 2, 1, 3});
}

TEST(TensorLayout, ChannelToHeightIsAPureReshape) {
  Attributes attrs = ops::layout_channel_to_height({1, 4, 1, 1}, 2);
  EXPECT_EQ(attrs, layout_attrs({1, 2, 2, 1, 1}, {0, 1, 2, 3, 4}, {1, 1, 2, 1}));
  expect_f32(run1("Layout", attrs, {iota({1, 4, 1, 1})}), {1, 2, 2, 1}, {0, 1, 2, 3});
}

TEST(TensorLayout, DilationDeinterleaveGroupsResidues) {
  // Width 4 with factor 2: columns {0, 2} form batch 0, columns {1, 3} batch 1.
  expect_f32(run1("Layout", ops::layout_dilation_deinterleave({1, 1, 1, 4}, 3, 2), {iota({1, 1, 1, 4})}),
             {2, 1, 1, 2}, {0, 2, 1, 3});
}

TEST(TensorLayout, BuildersAndInverseRoundTrip) {
  Shape shape{4, 2, 6, 6};
  Tensor input = iota(shape);
  std::vector<Attributes> transforms{
      ops::layout_batch_to_height(shape, 2),         ops::layout_height_to_batch(shape, 3),
      ops::layout_channel_to_height(shape, 2),       ops::layout_dilation_deinterleave(shape, 2, 3),
      ops::layout_dilation_interleave(shape, 3, 2),  ops::layout_transpose(shape, {3, 1, 0, 2}),
      ops::layout_identity(shape)};
  for (const Attributes& forward : transforms) {
    Graph graph;
    ValueId x = graph.add_input("x", input.type());
    ValueId y = graph.add_node1("Layout", forward, {x});
    graph.add_output(graph.add_node1("Layout", ops::layout_inverse(shape, forward), {y}));
    EXPECT_TRUE(execute(graph, {input})[0].same_content(input)) << attr_value_to_string(forward.entries().at("perm"));
  }
}

TEST(TensorLayout, DeinterleaveThenInterleaveRestoresTheInput) {
  Shape shape{2, 3, 6, 4};
  Tensor input = iota(shape);
  Graph graph;
  ValueId x = graph.add_input("x", input.type());
  ValueId y = graph.add_node1("Layout", ops::layout_dilation_deinterleave(shape, 2, 3), {x});
  graph.add_output(graph.add_node1("Layout", ops::layout_dilation_interleave(graph.value(y).type.shape, 2, 3), {y}));
  EXPECT_TRUE(execute(graph, {input})[0].same_content(input));
}

TEST(TensorLayout, RefinementAssignsFactorsToDimensions) {
  EXPECT_EQ(ops::layout_refinement({4, 6}, {2, 2, 1, 6}), (Ints{2, 2}));
  EXPECT_EQ(ops::layout_refinement({4, 1}, {4, 1, 1}), (Ints{1, 2}));
  EXPECT_FALSE(ops::layout_refinement({4, 6}, {3, 8}).has_value());
  EXPECT_FALSE(ops::layout_refinement({4}, {2, 2, 2}).has_value());
}

TEST(TensorLayout, NonRefiningExpandedIsAUserError) {
  expect_user_error([] { add_node_on("Layout", layout_attrs({3, 8}, {1, 0}, {1, 1}), {{DType::f32, {4, 6}}}); },
                    "node 'n' (Layout): expanded [3, 8] does not refine the input shape 4x6: each input dimension "
                    "must split into consecutive factors whose product is that dimension");
}

TEST(TensorLayout, BadPermIsAUserError) {
  expect_user_error([] { add_node_on("Layout", layout_attrs({2, 3}, {0, 2}, {2}), {{DType::f32, {6}}}); },
                    "node 'n' (Layout): perm [0, 2] is not a permutation of the 2 expanded dimensions");
}

TEST(TensorLayout, GroupsThatDoNotCoverExpandedAreAUserError) {
  expect_user_error([] { add_node_on("Layout", layout_attrs({2, 3}, {1, 0}, {1}), {{DType::f32, {6}}}); },
                    "node 'n' (Layout): groups [1] merge 1 dimensions, but expanded has 2");
}

TEST(TensorLayout, MoreThanThirtyTwoFactorsAreAUserError) {
  // A 6-element input split into 2 x 3 and 31 trailing factors of 1: 33 factors, more than the
  // point facet's coordinates hold.
  std::vector<int64_t> expanded{2, 3};
  expanded.resize(33, 1);
  std::vector<int64_t> perm(33);
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  expect_user_error([&] { add_node_on("Layout", layout_attrs(expanded, perm, {33}), {{DType::f32, {6}}}); },
                    "node 'n' (Layout): expanded has 33 factors; a Layout takes at most 32");
}

TEST(TensorLayout, BuilderWithNonDividingFactorIsAUserError) {
  expect_user_error([] { ops::layout_batch_to_height({3, 1, 2, 2}, 2); },
                    "batch-to-axis layout: axis 0 of 3x1x2x2 (size 3) is not divisible by factor 2");
}

// ---------------------------------------------------------------- ONNX import and export

TEST(TensorImport, SliceCanonicalizesOldAttributesAndNewInputsAlike) {
  TensorType data{DType::f32, {10, 4}};
  FakeImportNode old_style("Slice", 9, {{"starts", Ints{-3}}, {"ends", Ints{100}}, {"axes", Ints{0}}}, {data});
  FakeImportNode new_style("Slice", 13, {}, {data, std::nullopt, std::nullopt, std::nullopt},
                           {{1, Tensor::i64({1}, {-3})},
                            {2, Tensor::i64({1}, {std::numeric_limits<int64_t>::max()})},
                            {3, Tensor::i64({1}, {-2})}});
  Attributes want{{"starts", Ints{7, 0}}, {"ends", Ints{10, 4}}, {"steps", Ints{1, 1}}};
  EXPECT_EQ(import_node(old_style).attrs, want);
  EXPECT_EQ(import_node(new_style).attrs, want);
  EXPECT_EQ(import_node(new_style).inputs, (std::vector<int>{0}));
}

TEST(TensorImport, SliceClampsNegativeStepsToBeforeTheFirstElement) {
  FakeImportNode node("Slice", 13, {}, {TensorType{DType::f32, {5}}, std::nullopt, std::nullopt, std::nullopt, std::nullopt},
                      {{1, Tensor::i64({1}, {-1})},
                       {2, Tensor::i64({1}, {std::numeric_limits<int64_t>::min()})},
                       {3, Tensor::i64({1}, {0})},
                       {4, Tensor::i64({1}, {-1})}});
  EXPECT_EQ(import_node(node).attrs, (Attributes{{"starts", Ints{4}}, {"ends", Ints{-1}}, {"steps", Ints{-1}}}));
}

TEST(TensorImport, ReshapeResolvesZeroAndMinusOne) {
  FakeImportNode node("Reshape", 13, {}, {TensorType{DType::f32, {2, 3, 4}}, std::nullopt},
                      {{1, Tensor::i64({3}, {0, -1, 2})}});
  EXPECT_EQ(import_node(node).attrs, (Attributes{{"shape", Ints{2, 6, 2}}}));
}

TEST(TensorImport, ReshapeWithARuntimeShapeIsAUserError) {
  FakeImportNode node("Reshape", 13, {}, {TensorType{DType::f32, {6}}, TensorType{DType::i64, {2}}});
  expect_user_error([&] { import_node(node); },
                    "node 'n' (Reshape, opset 13): input 1 (shape) must be a constant; fold it");
}

TEST(TensorImport, SplitWithoutSizesSplitsEvenlyByOutputCount) {
  FakeImportNode node("Split", 13, {{"axis", int64_t{-1}}}, {TensorType{DType::f32, {2, 6}}}, {}, 3);
  EXPECT_EQ(import_node(node).attrs, (Attributes{{"axis", int64_t{1}}, {"split", Ints{2, 2, 2}}}));
}

TEST(TensorImport, SqueezeWithoutAxesDropsEveryUnitAxis) {
  FakeImportNode node("Squeeze", 11, {}, {TensorType{DType::f32, {1, 3, 1}}});
  EXPECT_EQ(import_node(node).attrs, (Attributes{{"axes", Ints{0, 2}}}));
}

TEST(TensorImport, PadReadsOldAttributesAndNewInputs) {
  TensorType data{DType::f32, {2, 2}};
  FakeImportNode old_style("Pad", 2, {{"pads", Ints{1, 0, 0, 1}}, {"value", 1.5}}, {data});
  FakeImportNode new_style("Pad", 11, {}, {data, std::nullopt, std::nullopt},
                           {{1, Tensor::i64({4}, {1, 0, 0, 1})}, {2, Tensor::scalar_f32(1.5f)}});
  Attributes want{{"mode", std::string("constant")}, {"pads", Ints{1, 0, 0, 1}}, {"value", 1.5}};
  EXPECT_EQ(import_node(old_style).attrs, want);
  EXPECT_EQ(import_node(new_style).attrs, want);
}

TEST(TensorImport, PadWrapModeIsUnsupported) {
  FakeImportNode node("Pad", 11, {{"mode", std::string("wrap")}}, {TensorType{DType::f32, {2}}, std::nullopt},
                      {{1, Tensor::i64({2}, {1, 1})}});
  expect_user_error([&] { import_node(node); },
                    "node 'n' (Pad, opset 11): mode 'wrap' is not supported; re-export the model without it, or open "
                    "an issue with this model");
}

TEST(TensorImport, ExpandStoresTheBroadcastShape) {
  FakeImportNode node("Expand", 13, {}, {TensorType{DType::f32, {3, 1}}, std::nullopt}, {{1, Tensor::i64({2}, {1, 4})}});
  EXPECT_EQ(import_node(node).attrs, (Attributes{{"shape", Ints{3, 4}}}));
}

TEST(TensorImport, ConstantOfShapeReadsTheValueTensor) {
  FakeImportNode node("ConstantOfShape", 9, {}, {std::nullopt}, {{0, Tensor::i64({2}, {2, 3})}});
  node.tensors.emplace("value", Tensor::i64({1}, {5}));
  OnnxImported imported = import_node(node);
  EXPECT_EQ(imported.attrs, (Attributes{{"shape", Ints{2, 3}}, {"value", 5.0}, {"dtype", std::string("i64")}}));
  EXPECT_TRUE(imported.inputs.empty());
}

TEST(TensorImport, UnknownAttributeIsUnsupported) {
  FakeImportNode node("Transpose", 13, {{"perm", Ints{1, 0}}, {"fancy", int64_t{1}}}, {TensorType{DType::f32, {2, 2}}});
  expect_user_error([&] { import_node(node); },
                    "node 'n' (Transpose, opset 13): attribute 'fancy' is not supported; re-export the model without "
                    "it, or open an issue with this model");
}

// Builds `op` on inputs of `types`, exports it at `opset`, re-imports the single ONNX node it
// becomes and expects the same canonical attributes back.
void expect_round_trip(const std::string& op, const Attributes& attrs, const std::vector<TensorType>& types, int opset) {
  Graph graph;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < types.size(); ++i) ids.push_back(graph.add_input(fmt::format("in{}", i), types[i]));
  std::vector<ValueId> outputs = graph.add_node(op, attrs, ids, "node");
  const Node& node = graph.nodes().back();
  FakeExportNode out(opset, types);
  node.def->to_onnx(node, out);
  ASSERT_EQ(out.nodes.size(), 1u) << op << " at opset " << opset;
  const ExportedNode& exported = out.nodes[0];
  std::vector<std::optional<TensorType>> input_types;
  std::map<int, Tensor> constants;
  for (size_t i = 0; i < exported.inputs.size(); ++i) {
    const std::string& name = exported.inputs[i];
    if (const Tensor* value = out.find_constant(name)) constants.emplace(static_cast<int>(i), *value);
    input_types.push_back(name.empty() ? std::nullopt : std::optional<TensorType>(TensorType{}));
    if (name.rfind("in", 0) == 0) input_types.back() = types.at(std::stoul(name.substr(2)));
  }
  FakeImportNode back(exported.op_type, opset, exported.attrs, input_types, constants,
                      static_cast<int>(outputs.size()));
  EXPECT_EQ(import_node(back).attrs, node.attrs) << op << " at opset " << opset;
}

TEST(TensorExport, OpsRoundTripThroughEveryOpset) {
  TensorType matrix{DType::f32, {4, 6}};
  for (int opset : {7, 9, 10, 11, 13, 14, 15, 17}) {
    expect_round_trip("Concat", {{"axis", int64_t{1}}}, {matrix, matrix}, opset);
    expect_round_trip("Split", {{"axis", int64_t{1}}, {"split", Ints{2, 4}}}, {matrix}, opset);
    expect_round_trip("Pad", {{"pads", Ints{1, 0, 2, 1}}, {"value", 2.0}}, {matrix}, opset);
    expect_round_trip("Pad", {{"mode", std::string("reflect")}, {"pads", Ints{1, 0, 2, 1}}}, {matrix}, opset);
    expect_round_trip("Transpose", {{"perm", Ints{1, 0}}}, {matrix}, opset);
    expect_round_trip("Reshape", {{"shape", Ints{2, 12}}}, {matrix}, opset);
    expect_round_trip("Flatten", {{"axis", int64_t{1}}}, {matrix}, opset);
    expect_round_trip("Squeeze", {{"axes", Ints{0}}}, {{DType::f32, {1, 6}}}, opset);
    expect_round_trip("Unsqueeze", {{"axes", Ints{0, 3}}}, {matrix}, opset);
    expect_round_trip("Gather", {{"axis", int64_t{1}}}, {matrix, {DType::i64, {2}}}, opset);
    expect_round_trip("Tile", {{"repeats", Ints{1, 2}}}, {matrix}, opset);
    expect_round_trip("Size", {}, {matrix}, opset);
    expect_round_trip("Slice", {{"starts", Ints{1, 0}}, {"ends", Ints{4, 6}}, {"steps", Ints{1, 1}}}, {matrix}, opset);
    if (opset >= 8) expect_round_trip("Expand", {{"shape", Ints{3, 4, 6}}}, {matrix}, opset);
    if (opset >= 9) expect_round_trip("ConstantOfShape", {{"shape", Ints{2, 2}}}, {}, opset);
    if (opset >= 10)
      expect_round_trip("Slice", {{"starts", Ints{3, 5}}, {"ends", Ints{-1, 0}}, {"steps", Ints{-1, -2}}}, {matrix},
                        opset);
    if (opset >= 11)
      expect_round_trip("Range", {{"start", 0.0}, {"limit", 5.0}, {"delta", 2.0}, {"dtype", std::string("i64")}}, {},
                        opset);
    if (opset >= 15) expect_round_trip("Shape", {{"start", int64_t{1}}, {"end", int64_t{2}}}, {matrix}, opset);
  }
}

TEST(TensorExport, LayoutLowersToReshapeTransposeReshape) {
  Shape shape{2, 1, 2, 2};
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, shape});
  graph.add_node1("Layout", ops::layout_batch_to_height(shape, 2), {x}, "n2h");
  FakeExportNode out(13, {{DType::f32, shape}});
  graph.nodes().back().def->to_onnx(graph.nodes().back(), out);
  ASSERT_EQ(out.nodes.size(), 3u);
  EXPECT_EQ(out.nodes[0].op_type, "Reshape");
  EXPECT_EQ(out.constant(out.nodes[0].inputs[1]).to_int_vector(), (Ints{2, 1, 1, 2, 2}));
  EXPECT_EQ(out.nodes[1].op_type, "Transpose");
  EXPECT_EQ(out.nodes[1].attrs.get_ints("perm"), (Ints{1, 2, 0, 3, 4}));
  EXPECT_EQ(out.nodes[2].op_type, "Reshape");
  EXPECT_EQ(out.constant(out.nodes[2].inputs[1]).to_int_vector(), (Ints{1, 1, 4, 2}));
  EXPECT_EQ(out.nodes[2].outputs, (std::vector<std::string>{"out0"}));
}

TEST(TensorExport, LayoutSkipsIdentitySteps) {
  Shape shape{2, 3};
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, shape});
  graph.add_node1("Layout", ops::layout_transpose(shape, {1, 0}), {x});
  graph.add_node1("Layout", ops::layout_identity(shape), {x});
  FakeExportNode transpose_only(13, {{DType::f32, shape}});
  graph.nodes()[0].def->to_onnx(graph.nodes()[0], transpose_only);
  ASSERT_EQ(transpose_only.nodes.size(), 1u);
  EXPECT_EQ(transpose_only.nodes[0].op_type, "Transpose");
  FakeExportNode identity(13, {{DType::f32, shape}});
  graph.nodes()[1].def->to_onnx(graph.nodes()[1], identity);
  ASSERT_EQ(identity.nodes.size(), 1u);
  EXPECT_EQ(identity.nodes[0].op_type, "Identity");
}

// A random refinement, permutation and grouping of a random shape, drawn from `random`.
Attributes random_layout(std::mt19937_64& random, Shape& input) {
  auto draw = [&](int64_t bound) { return static_cast<int64_t>(random() % static_cast<uint64_t>(bound)); };
  const Ints sizes{1, 2, 3, 4, 6, 8};
  Ints dims, expanded;
  for (int64_t axis = 0, rank = 1 + draw(4); axis < rank; ++axis) {
    int64_t dim = sizes[static_cast<size_t>(draw(6))];
    dims.push_back(dim);
    Ints divisors;
    for (int64_t d = 1; d <= dim; ++d)
      if (dim % d == 0) divisors.push_back(d);
    int64_t outer = divisors[static_cast<size_t>(draw(static_cast<int64_t>(divisors.size())))];
    expanded.insert(expanded.end(), {outer, dim / outer});
    if (draw(4) == 0) expanded.push_back(1);
  }
  input = Shape(dims);
  Ints perm(expanded.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::shuffle(perm.begin(), perm.end(), random);
  Ints groups;
  for (auto left = static_cast<int64_t>(expanded.size()); left > 0;) {
    groups.push_back(1 + draw(std::min<int64_t>(left, 3)));
    left -= groups.back();
  }
  return layout_attrs(expanded, perm, groups);
}

// Runs what an op exported (Reshape / Transpose / Identity) as pet ops on `input`.
Tensor run_exported(const FakeExportNode& out, const Tensor& input) {
  Graph graph;
  std::map<std::string, ValueId> values{{"in0", graph.add_input("in0", input.type())}};
  for (const ExportedNode& node : out.nodes) {
    ValueId source = values.at(node.inputs[0]);
    Attributes attrs;
    if (node.op_type == "Reshape") attrs = {{"shape", out.constant(node.inputs[1]).to_int_vector()}};
    if (node.op_type == "Transpose") attrs = node.attrs;
    values[node.outputs[0]] = node.op_type == "Identity" ? source : graph.add_node1(node.op_type, attrs, {source});
  }
  graph.add_output(values.at("out0"));
  return execute(graph, {input})[0];
}

TEST(TensorExport, RandomLayoutsMatchTheirLowering) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937_64 random(seed);
    Shape shape;
    Attributes attrs = random_layout(random, shape);
    Tensor input = iota(shape);
    Graph graph;
    ValueId x = graph.add_input("x", input.type());
    graph.add_output(graph.add_node1("Layout", attrs, {x}));
    FakeExportNode out(13, {input.type()});
    graph.nodes().back().def->to_onnx(graph.nodes().back(), out);
    ASSERT_TRUE(execute(graph, {input})[0].same_content(run_exported(out, input)))
        << shape.to_string() << " " << attr_value_to_string(attrs.entries().at("expanded")) << " "
        << attr_value_to_string(attrs.entries().at("perm")) << " " << attr_value_to_string(attrs.entries().at("groups"));
  }
}

// One node of every op of the family on a float input and an index input.
Graph family_graph(int opset) {
  Graph graph;
  graph.opset = opset;
  ValueId x = graph.add_input("x", {DType::f32, {2, 3, 4}});
  ValueId index = graph.add_input("index", {DType::i64, {2}});
  std::vector<ValueId> outputs{
      graph.add_node1("Concat", {{"axis", int64_t{1}}}, {x, x}),
      graph.add_node1("Slice", {{"starts", Ints{0, 2, 3}}, {"ends", Ints{2, -1, 0}}, {"steps", Ints{1, -1, -2}}}, {x}),
      graph.add_node1("Pad", {{"mode", std::string("reflect")}, {"pads", Ints{0, 1, 2, 0, 2, 1}}}, {x}),
      graph.add_node1("Pad", {{"pads", Ints{1, 0, 0, 0, 0, 1}}, {"value", 0.5}}, {x}),
      graph.add_node1("Transpose", {{"perm", Ints{2, 0, 1}}}, {x}),
      graph.add_node1("Reshape", {{"shape", Ints{6, 4}}}, {x}),
      graph.add_node1("Flatten", {{"axis", int64_t{2}}}, {x}),
      graph.add_node1("Squeeze", {{"axes", Ints{0}}}, {graph.add_node1("Unsqueeze", {{"axes", Ints{0}}}, {x})}),
      graph.add_node1("Expand", {{"shape", Ints{2, 2, 3, 4}}}, {x}),
      graph.add_node1("Gather", {{"axis", int64_t{2}}}, {x, index}),
      graph.add_node1("Tile", {{"repeats", Ints{1, 2, 1}}}, {x}),
      graph.add_node1("Layout", layout_attrs({2, 3, 2, 2}, {2, 0, 3, 1}, {2, 2}), {x})};
  for (ValueId piece : graph.add_node("Split", {{"axis", int64_t{2}}, {"split", Ints{1, 3}}}, {x})) outputs.push_back(piece);
  graph.set_outputs(outputs);
  return graph;
}

TEST(TensorOnnxFile, EveryOpSurvivesExportAndImportAtEachOpset) {
  for (int opset : {11, 13, 17}) {
    Graph graph = family_graph(opset);
    Graph back = through_onnx_file(graph, fmt::format("pet_tensor_{}.onnx", opset));
    std::vector<Tensor> inputs{iota({2, 3, 4}), Tensor::i64({2}, {-1, 1})};
    std::vector<Tensor> want = execute(graph, inputs), got = execute(back, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(got[i].same_content(want[i])) << "output " << i << " at opset " << opset;
  }
}

}  // namespace
}  // namespace pet::test
