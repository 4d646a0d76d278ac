// Convolution, pooling, matrix-product and resize ops: before -> after values on tiny graphs,
// comparisons with direct loops, ONNX import canonicalization, export round trips and errors.
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/graph.h"
#include "core/onnx_mapping.h"
#include "core/registry.h"
#include "core/text_ir.h"
#include "tests/core/fake_onnx_node.h"
#include "tests/core/op_test_util.h"

namespace pet::test {
namespace {

using Ints = std::vector<int64_t>;
using Floats = std::vector<double>;

void expect_near(const Tensor& got, const Tensor& want, float tolerance = 1e-4f) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.numel(); ++i)
    ASSERT_NEAR(got.f32()[static_cast<size_t>(i)], want.f32()[static_cast<size_t>(i)], tolerance) << "element " << i;
}

Tensor filled(const Shape& shape, float value) {
  return Tensor::f32(shape, std::vector<float>(static_cast<size_t>(shape.numel()), value));
}

Attributes conv_attrs(Ints strides, Ints pads, Ints dilations, int64_t group = 1) {
  return {{"strides", strides}, {"pads", pads}, {"dilations", dilations}, {"group", group}};
}

Attributes pool_attrs(Ints kernel, Ints strides, Ints pads) {
  return {{"kernel_shape", kernel}, {"strides", strides}, {"pads", pads}};
}

// ---- reference loops the kernels are checked against --------------------------------------

// Row-major index of `coordinate` in `shape`.
int64_t flat(const Shape& shape, const Ints& coordinate) {
  int64_t index = 0;
  for (int d = 0; d < shape.rank(); ++d) index = index * shape[d] + coordinate[static_cast<size_t>(d)];
  return index;
}

// Calls visit(coordinate) for every coordinate of `shape`.
void for_each_index(const Shape& shape, const std::function<void(const Ints&)>& visit) {
  Ints coordinate(static_cast<size_t>(shape.rank()), 0);
  for (int64_t i = 0; i < shape.numel(); ++i) {
    visit(coordinate);
    for (int d = shape.rank() - 1; d >= 0; --d) {
      if (++coordinate[static_cast<size_t>(d)] < shape[d]) break;
      coordinate[static_cast<size_t>(d)] = 0;
    }
  }
}

// Every (output element, input element, weight element) triple a convolution multiplies,
// written as in the ONNX definition; ConvTranspose (the adjoint, with the same weight layout
// read as [input channels, filters / group, ...]) scatters along the same triples.
struct ConvCase {
  Shape x, w;
  Ints strides, pads, dilations;
  int64_t group;
};

void for_each_conv_term(const ConvCase& c, const Shape& image, const Shape& grid,
                        const std::function<void(int64_t image_index, int64_t grid_index, int64_t w_index)>& visit) {
  int rank = c.x.rank() - 2;
  int64_t filters_per_group = c.w[0] / c.group, channels_per_group = c.w[1];
  Shape kernel(Ints(c.w.dims().begin() + 2, c.w.dims().end()));
  for_each_index(grid, [&](const Ints& g) {  // g = [n, filter, spatial...] of the conv output
    int64_t group = g[1] / filters_per_group;
    for (int64_t ch = 0; ch < channels_per_group; ++ch) {
      for_each_index(kernel, [&](const Ints& k) {
        Ints at = {g[0], group * channels_per_group + ch};
        for (int d = 0; d < rank; ++d) {
          auto i = static_cast<size_t>(d);
          int64_t position = g[i + 2] * c.strides[i] - c.pads[i] + k[i] * c.dilations[i];
          if (position < 0 || position >= image[d + 2]) return;
          at.push_back(position);
        }
        Ints w_at = {g[1], ch};
        w_at.insert(w_at.end(), k.begin(), k.end());
        visit(flat(image, at), flat(grid, g), flat(c.w, w_at));
      });
    }
  });
}

// ---- Conv ---------------------------------------------------------------------------------

TEST(Conv, TwoByTwoOnesKernelSumsWindows) {
  expect_f32(run1("Conv", conv_attrs({1, 1}, {0, 0, 0, 0}, {1, 1}), {iota({1, 1, 3, 3}, 1), filled({1, 1, 2, 2}, 1)}),
             {1, 1, 2, 2}, {12, 16, 24, 28});
}

TEST(Conv, PaddedStridedWithBias) {
  // Windows of 3x3 ones at stride 2 over a zero-padded 0..8 grid, plus 1.
  expect_f32(run1("Conv", conv_attrs({2, 2}, {1, 1, 1, 1}, {1, 1}),
                  {iota({1, 1, 3, 3}), filled({1, 1, 3, 3}, 1), Tensor::f32({1}, {1})}),
             {1, 1, 2, 2}, {9, 13, 21, 25});
}

TEST(Conv, DepthwiseGroupsScaleEachChannel) {
  expect_f32(run1("Conv", conv_attrs({1}, {0, 0}, {1}, 2), {iota({1, 2, 2}), Tensor::f32({2, 1, 1}, {2, 3})}),
             {1, 2, 2}, {0, 2, 6, 9});
}

TEST(Conv, MatchesDirectLoops) {
  std::vector<ConvCase> cases = {
      {{2, 3, 11}, {4, 3, 3}, {2}, {1, 2}, {2}, 1},                                        // 1-D, asymmetric pads
      {{1, 4, 7, 6}, {6, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}, 2},                       // groups, dilation
      {{1, 8, 5, 5}, {4, 8, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},                       // pointwise fast path
      {{1, 8, 24, 30, 30}, {2, 8, 3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, 1},  // 3-D, chunked columns
  };
  for (size_t t = 0; t < cases.size(); ++t) {
    const ConvCase& c = cases[t];
    Tensor x = Tensor::random_f32(c.x, 10 + t), w = Tensor::random_f32(c.w, 20 + t);
    Tensor got = run1("Conv", conv_attrs(c.strides, c.pads, c.dilations, c.group), {x, w});
    Tensor want(got.type());
    auto out = want.mutable_f32();
    for_each_conv_term(c, c.x, got.shape(), [&](int64_t xi, int64_t yi, int64_t wi) {
      out[static_cast<size_t>(yi)] += x.f32()[static_cast<size_t>(xi)] * w.f32()[static_cast<size_t>(wi)];
    });
    SCOPED_TRACE(fmt::format("case {}", t));
    expect_near(got, want);
  }
}

// ---- ConvTranspose ------------------------------------------------------------------------

Attributes conv_transpose_attrs(Ints strides, Ints pads, Ints dilations, Ints output_padding, int64_t group = 1) {
  Attributes attrs = conv_attrs(std::move(strides), std::move(pads), std::move(dilations), group);
  attrs.set("output_padding", output_padding);
  return attrs;
}

TEST(ConvTranspose, StrideTwoOnesKernelCopiesEachInputIntoABlock) {
  expect_f32(run1("ConvTranspose", conv_transpose_attrs({2, 2}, {0, 0, 0, 0}, {1, 1}, {0, 0}),
                  {iota({1, 1, 2, 2}, 1), filled({1, 1, 2, 2}, 1)}),
             {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(ConvTranspose, OverlappingTapsAddUpAndBiasIsAdded) {
  expect_f32(run1("ConvTranspose", conv_transpose_attrs({1}, {0, 0}, {1}, {0}),
                  {iota({1, 1, 3}, 1), filled({1, 2, 2}, 1), Tensor::f32({2}, {0, 10})}),
             {1, 2, 4}, {1, 3, 5, 3, 11, 13, 15, 13});
}

TEST(ConvTranspose, MatchesScatterLoops) {
  std::vector<std::pair<ConvCase, Ints>> cases = {
      {{{1, 2, 5}, {2, 3, 3}, {2}, {1, 0}, {1}, 1}, {1}},                       // 1-D, output_padding
      {{{2, 4, 3, 4}, {4, 2, 3, 2}, {3, 2}, {1, 2, 0, 1}, {1, 2}, 2}, {0, 1}},  // groups, dilation
      {{{1, 2, 3, 4, 5}, {2, 2, 3, 3, 3}, {1, 2, 1}, {0, 1, 1, 0, 1, 1}, {1, 1, 2}, 1}, {0, 0, 0}},  // 3-D
  };
  for (size_t t = 0; t < cases.size(); ++t) {
    const auto& [c, output_padding] = cases[t];
    Tensor x = Tensor::random_f32(c.x, 30 + t), w = Tensor::random_f32(c.w, 40 + t);
    Tensor got =
        run1("ConvTranspose", conv_transpose_attrs(c.strides, c.pads, c.dilations, output_padding, c.group), {x, w});
    Tensor want(got.type());
    auto out = want.mutable_f32();
    // The conv whose adjoint this is reads `got` as its image and yields x's shape.
    for_each_conv_term(c, got.shape(), c.x, [&](int64_t yi, int64_t xi, int64_t wi) {
      out[static_cast<size_t>(yi)] += x.f32()[static_cast<size_t>(xi)] * w.f32()[static_cast<size_t>(wi)];
    });
    SCOPED_TRACE(fmt::format("case {}", t));
    expect_near(got, want);
  }
}

// ---- MatMul and Gemm ----------------------------------------------------------------------

TEST(MatMul, MatrixTimesMatrix) {
  expect_f32(run1("MatMul", {}, {iota({2, 3}), iota({3, 2})}), {2, 2}, {10, 13, 28, 40});
}

TEST(MatMul, VectorOperandsDropTheirDim) {
  expect_f32(run1("MatMul", {}, {iota({3}), iota({3, 2})}), {2}, {10, 13});
  expect_f32(run1("MatMul", {}, {iota({2, 3}), iota({3})}), {2}, {5, 14});
  expect_f32(run1("MatMul", {}, {iota({3}), iota({3})}), {}, {5});
}

TEST(MatMul, BatchDimsBroadcast) {
  Tensor a = Tensor::random_f32({2, 1, 2, 3}, 1), b = Tensor::random_f32({3, 3, 4}, 2);
  Tensor got = run1("MatMul", {}, {a, b});
  Tensor want(DType::f32, {2, 3, 2, 4});
  for_each_index(want.shape(), [&](const Ints& i) {
    float sum = 0;
    for (int64_t k = 0; k < 3; ++k)
      sum += a.f32()[static_cast<size_t>(flat(a.shape(), {i[0], 0, i[2], k}))] *
             b.f32()[static_cast<size_t>(flat(b.shape(), {i[1], k, i[3]}))];
    want.mutable_f32()[static_cast<size_t>(flat(want.shape(), i))] = sum;
  });
  expect_near(got, want);
  // A shared 2-D B takes the single-GEMM path.
  Tensor shared = Tensor::random_f32({3, 4}, 3);
  Tensor tall = run1("MatMul", {}, {a, shared});
  Tensor first =
      run1("MatMul", {},
           {Tensor::f32({2, 3}, {a.f32()[0], a.f32()[1], a.f32()[2], a.f32()[3], a.f32()[4], a.f32()[5]}), shared});
  for (size_t i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(tall.f32()[i], first.f32()[i]);
}

TEST(Gemm, TransposesScalesAndBroadcastsC) {
  // A^T = [[0,1,2],[3,4,5]] (A given as 3x2), B^T = I3 (B given transposed), C a row.
  Attributes attrs = {{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 2.0}, {"beta", 0.5}};
  Tensor a = Tensor::f32({3, 2}, {0, 3, 1, 4, 2, 5});
  Tensor b = Tensor::f32({3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  expect_f32(run1("Gemm", attrs, {a, b, Tensor::f32({3}, {2, 4, 6})}), {2, 3}, {1, 4, 7, 7, 10, 13});
}

TEST(Gemm, WithoutC) { expect_f32(run1("Gemm", {}, {iota({2, 3}), iota({3, 2})}), {2, 2}, {10, 13, 28, 40}); }

// ---- pools --------------------------------------------------------------------------------

TEST(MaxPool, TwoByTwoStrideTwo) {
  Attributes attrs = pool_attrs({2, 2}, {2, 2}, {0, 0, 0, 0});
  attrs.set("dilations", Ints{1, 1});
  expect_f32(run1("MaxPool", attrs, {iota({1, 1, 4, 4})}), {1, 1, 2, 2}, {5, 7, 13, 15});
}

TEST(MaxPool, DilatedWindows) {
  Attributes attrs = pool_attrs({2, 2}, {1, 1}, {0, 0, 0, 0});
  attrs.set("dilations", Ints{2, 2});
  expect_f32(run1("MaxPool", attrs, {iota({1, 1, 4, 4}, 1)}), {1, 1, 2, 2}, {11, 12, 15, 16});
}

TEST(MaxPool, CeilModeKeepsTheLastPartialWindow) {
  Attributes attrs = pool_attrs({3, 3}, {2, 2}, {0, 0, 0, 0});
  attrs.set("dilations", Ints{1, 1});
  attrs.set("ceil_mode", int64_t{1});
  expect_f32(run1("MaxPool", attrs, {iota({1, 1, 4, 4}, 1)}), {1, 1, 2, 2}, {11, 12, 15, 16});
}

TEST(AveragePool, PaddingExcludedOrCounted) {
  Attributes attrs = pool_attrs({2, 2}, {1, 1}, {1, 1, 1, 1});
  expect_f32(run1("AveragePool", attrs, {iota({1, 1, 2, 2}, 1)}), {1, 1, 3, 3}, {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
  attrs.set("count_include_pad", int64_t{1});
  expect_f32(run1("AveragePool", attrs, {iota({1, 1, 2, 2}, 1)}), {1, 1, 3, 3},
             {0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1});
}

TEST(AveragePool, OneDimensionalStrided) {
  expect_f32(run1("AveragePool", pool_attrs({3}, {2}, {0, 0}), {iota({1, 1, 7})}), {1, 1, 3}, {1, 3, 5});
}

TEST(GlobalPools, ReduceEveryPlane) {
  expect_f32(run1("GlobalAveragePool", {}, {iota({1, 2, 2, 2})}), {1, 2, 1, 1}, {1.5f, 5.5f});
  expect_f32(run1("GlobalMaxPool", {}, {iota({1, 2, 2, 2})}), {1, 2, 1, 1}, {3, 7});
  expect_f32(run1("GlobalAveragePool", {}, {iota({1, 1, 2, 1, 2})}), {1, 1, 1, 1, 1}, {1.5f});
}

// ---- Resize -------------------------------------------------------------------------------

Attributes resize_attrs(const std::string& mode, const std::string& coordinates, Floats scales, Ints sizes,
                        const std::string& nearest = "round_prefer_floor") {
  return {{"mode", mode},
          {"coordinate_transformation_mode", coordinates},
          {"nearest_mode", nearest},
          {"scales", scales},
          {"sizes", sizes}};
}

TEST(Resize, NearestAsymmetricFloorRepeats) {
  expect_f32(run1("Resize", resize_attrs("nearest", "asymmetric", {1, 1, 2, 2}, {1, 1, 4, 4}, "floor"),
                  {iota({1, 1, 2, 2}, 1)}),
             {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(Resize, BilinearHalfPixel) {
  expect_f32(run1("Resize", resize_attrs("linear", "half_pixel", {1, 1, 2, 2}, {1, 1, 4, 4}), {iota({1, 1, 2, 2}, 1)}),
             {1, 1, 4, 4},
             {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
}

TEST(Resize, LinearAlignCorners) {
  expect_f32(run1("Resize", resize_attrs("linear", "align_corners", {1, 5.0f / 3.0f}, {1, 5}), {iota({1, 3})}), {1, 5},
             {0, 0.5f, 1, 1.5f, 2});
}

// ---- ONNX import and export ---------------------------------------------------------------

TensorType f32(Shape shape) { return {DType::f32, std::move(shape)}; }

TEST(NnImport, ConvSameUpperBecomesExplicitPads) {
  OnnxImported conv = import_node(FakeImportNode(
      "Conv", 13, {{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints{2, 2}}, {"kernel_shape", Ints{3, 3}}},
      {f32({1, 1, 5, 6}), f32({2, 1, 3, 3})}));
  EXPECT_EQ(
      conv.attrs,
      (Attributes{
          {"strides", Ints{2, 2}}, {"pads", Ints{1, 0, 1, 1}}, {"dilations", Ints{1, 1}}, {"group", int64_t{1}}}));
  EXPECT_EQ(conv.inputs, (std::vector<int>{0, 1}));
}

TEST(NnImport, ConvTransposeOutputShapeBecomesPadsAndOutputPadding) {
  OnnxImported deconv =
      import_node(FakeImportNode("ConvTranspose", 11, {{"strides", Ints{3, 2}}, {"output_shape", Ints{10, 6}}},
                                 {f32({1, 1, 3, 3}), f32({1, 2, 3, 3})}));
  // Natural extents 9 and 7: 10 needs one more output_padding, 6 one pad (at the start: NOTSET).
  EXPECT_EQ(deconv.attrs.get_ints("pads"), (Ints{0, 1, 0, 0}));
  EXPECT_EQ(deconv.attrs.get_ints("output_padding"), (Ints{1, 0}));
}

TEST(NnImport, ResizeSizesGiveFloatScales) {
  OnnxImported resize = import_node(FakeImportNode("Resize", 13, {{"mode", std::string("linear")}},
                                                   {f32({1, 1, 2, 3}), std::nullopt, std::nullopt, std::nullopt},
                                                   {{3, Tensor::i64({4}, {1, 1, 3, 5})}}));
  EXPECT_EQ(resize.attrs.get_ints("sizes"), (Ints{1, 1, 3, 5}));
  EXPECT_EQ(resize.attrs.get_floats("scales"), (Floats{1, 1, 1.5, static_cast<float>(5.0f / 3.0f)}));
  EXPECT_EQ(resize.attrs.get_string("coordinate_transformation_mode"), "half_pixel");
  EXPECT_EQ(resize.inputs, (std::vector<int>{0}));
}

TEST(NnImport, UpsampleIsAsymmetricFloorResize) {
  OnnxImported upsample = import_node(
      FakeImportNode("Upsample", 9, {}, {f32({1, 1, 2, 2}), std::nullopt}, {{1, Tensor::f32({4}, {1, 1, 2, 3})}}));
  EXPECT_EQ(upsample.op, "Resize");
  EXPECT_EQ(upsample.attrs.get_string("coordinate_transformation_mode"), "asymmetric");
  EXPECT_EQ(upsample.attrs.get_string("nearest_mode"), "floor");
  EXPECT_EQ(upsample.attrs.get_ints("sizes"), (Ints{1, 1, 4, 6}));
}

TEST(NnImport, MaxPoolIndicesOutputSetsWithIndices) {
  OnnxImported pool = import_node(FakeImportNode(
      "MaxPool", 12, {{"kernel_shape", Ints{2, 2}}, {"storage_order", int64_t{1}}}, {f32({1, 1, 4, 4})}, {}, 2));
  EXPECT_EQ(pool.attrs.get_int("with_indices"), 1);
  EXPECT_EQ(pool.attrs.get_int("storage_order"), 1);
  OnnxImported plain =
      import_node(FakeImportNode("MaxPool", 12, {{"kernel_shape", Ints{2, 2}}, {"storage_order", int64_t{1}}},
                                 {f32({1, 1, 4, 4})}));
  EXPECT_EQ(plain.attrs.get_int("storage_order"), 0);  // no effect without indices: canonical 0
}

TEST(NnImport, ResizeAntialiasIsUnsupported) {
  expect_user_error(
      [] {
        import_node(FakeImportNode("Resize", 13, {{"mode", std::string("cubic")}, {"antialias", int64_t{1}}},
                                   {f32({1, 1, 2, 2})}));
      },
      "node 'n' (Resize, opset 13): antialias=1 is not supported; re-export the model without it, or "
      "open an issue with this model");
}

TEST(NnImport, ConvKernelShapeMustMatchTheWeight) {
  expect_user_error(
      [] {
        import_node(FakeImportNode("Conv", 13, {{"kernel_shape", Ints{5, 5}}}, {f32({1, 1, 5, 5}), f32({1, 1, 3, 3})}));
      },
      "node 'n' (Conv, opset 13): kernel_shape does not match the weight shape 1x1x3x3; drop "
      "kernel_shape or make it match the weight");
}

// Export at `opset`, import again: the printed IR (ops, canonical attributes, types) is unchanged.
void expect_round_trip(const std::string& ir, int opset) {
  Graph graph = parse_graph(ir);
  graph.opset = opset;
  Graph back = through_onnx_file(graph, fmt::format("pet_nn_roundtrip{}.onnx", opset));
  EXPECT_EQ(print_graph(back), print_graph(graph)) << "opset " << opset;
}

TEST(NnExport, RoundTripsKeepCanonicalAttributes) {
  const char* ir = R"(graph "nn" opset 13 {
    input %x : f32[1,2,6,6]
    const %w : f32[4,1,3,3] = random(1)
    const %b : f32[4] = random(2)
    const %fw : f32[1,8] = random(3)
    const %fb : f32[8] = random(4)
    %c = Conv[dilations=[1,1], group=2, pads=[1,0,1,1], strides=[2,1]](%x, %w, %b)
    %t = ConvTranspose[dilations=[1,1], group=1, output_padding=[1,0], pads=[0,1,0,1], strides=[2,2]](%c, %w)
    %m = MaxPool[ceil_mode=0, dilations=[1,1], kernel_shape=[2,2], pads=[0,0,1,1], strides=[2,2]](%t)
    %a = AveragePool[ceil_mode=0, count_include_pad=1, kernel_shape=[3,3], pads=[1,1,1,1], strides=[1,1]](%m)
    %r = Resize[coordinate_transformation_mode="asymmetric", mode="nearest", nearest_mode="floor", scales=[1,1,2,2], sizes=[1,1,8,10]](%a)
    %g = GlobalAveragePool(%r)
    %f = Flatten[axis=1](%g)
    %y = Gemm[alpha=1.5, beta=0.5, transA=0, transB=0](%f, %fw, %fb)
    output %y
  })";
  for (int opset : {9, 11, 13, 17}) expect_round_trip(ir, opset);
}

TEST(NnExport, ResizeFromSizesRoundTripsThroughSizes) {
  const char* ir = R"(graph "r" opset 13 {
    input %x : f32[1,1,3,3]
    %r = Resize[coordinate_transformation_mode="half_pixel", mode="linear", nearest_mode="round_prefer_floor", scales=[1,1,0.6666667,1.6666666], sizes=[1,1,2,5]](%x)
    output %r
  })";
  for (int opset : {11, 13}) expect_round_trip(ir, opset);
}

// ---- error messages -----------------------------------------------------------------------

TEST(NnErrors, ConvChannelMismatch) {
  expect_user_error(
      [] {
        add_node_on("Conv", conv_attrs({1, 1}, {0, 0, 0, 0}, {1, 1}),
                    {{DType::f32, {1, 3, 5, 5}}, {DType::f32, {4, 2, 3, 3}}});
      },
      "node 'n' (Conv): input has 3 channels, but weight 4x2x3x3 with group 1 expects 2");
}

TEST(NnErrors, ConvGroupMustDivideFilters) {
  expect_user_error(
      [] {
        add_node_on("Conv", conv_attrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 3),
                    {{DType::f32, {1, 6, 5, 5}}, {DType::f32, {4, 2, 3, 3}}});
      },
      "node 'n' (Conv): 4 output channels (weight dim 0) are not divisible by group 3");
}

TEST(NnErrors, ConvPadsNeedTwoEntriesPerSpatialDim) {
  expect_user_error(
      [] {
        add_node_on("Conv", conv_attrs({1, 1}, {0, 0}, {1, 1}),
                    {{DType::f32, {1, 2, 5, 5}}, {DType::f32, {4, 2, 3, 3}}});
      },
      "node 'n' (Conv): pads has 2 entries, expected 4 for 2 spatial dims");
}

TEST(NnErrors, ConvKernelLargerThanPaddedInput) {
  expect_user_error(
      [] {
        add_node_on("Conv", conv_attrs({1, 1}, {0, 0, 0, 0}, {1, 1}),
                    {{DType::f32, {1, 2, 2, 5}}, {DType::f32, {4, 2, 3, 3}}});
      },
      "node 'n' (Conv): kernel 3x3 (dilated) does not fit input 1x2x2x5 with the given pads");
}

TEST(NnErrors, ConvBiasLength) {
  expect_user_error(
      [] {
        add_node_on("Conv", conv_attrs({1}, {0, 0}, {1}),
                    {{DType::f32, {1, 2, 5}}, {DType::f32, {4, 2, 3}}, {DType::f32, {3}}});
      },
      "node 'n' (Conv): bias must be f32[4], got f32[3]");
}

TEST(NnErrors, ConvTransposeChannelMismatch) {
  expect_user_error(
      [] {
        add_node_on("ConvTranspose", conv_transpose_attrs({1}, {0, 0}, {1}, {0}),
                    {{DType::f32, {1, 3, 5}}, {DType::f32, {2, 2, 3}}});
      },
      "node 'n' (ConvTranspose): input has 3 channels, but weight 2x2x3 expects 2 (weight dim 0)");
}

TEST(NnErrors, MatMulInnerDimensionsDiffer) {
  expect_user_error(
      [] {
        add_node_on("MatMul", {}, {{DType::f32, {2, 3}}, {DType::f32, {4, 5}}});
      },
      "node 'n' (MatMul): inner dimensions differ: 2x3 and 4x5 (3 vs 4)");
}

TEST(NnErrors, GemmCMustBroadcastToTheOutput) {
  expect_user_error(
      [] {
        add_node_on("Gemm", {}, {{DType::f32, {2, 3}}, {DType::f32, {3, 4}}, {DType::f32, {3}}});
      },
      "node 'n' (Gemm): C of shape 3 does not broadcast to 2x4");
}

TEST(NnErrors, PoolKernelShapeNeedsOneEntryPerSpatialDim) {
  expect_user_error(
      [] {
        add_node_on("AveragePool", pool_attrs({2}, {1, 1}, {0, 0, 0, 0}), {{DType::f32, {1, 1, 4, 4}}});
      },
      "node 'n' (AveragePool): kernel_shape has 1 entries, expected 2 for 2 spatial dims");
}

TEST(NnErrors, ResizeNeedsOneSizePerAxis) {
  expect_user_error(
      [] {
        add_node_on("Resize", resize_attrs("nearest", "half_pixel", {1, 2}, {1, 4}), {{DType::f32, {1, 1, 2}}});
      },
      "node 'n' (Resize): scales and sizes need 3 entries (the input rank), got 2 and 2");
}

TEST(NnErrors, ResizeUnknownMode) {
  expect_user_error(
      [] {
        add_node_on("Resize", resize_attrs("area", "half_pixel", {2}, {4}), {{DType::f32, {2}}});
      },
      "node 'n' (Resize): mode 'area' is unknown");
}

}  // namespace
}  // namespace pet::test
