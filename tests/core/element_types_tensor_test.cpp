// Element types beyond f32 / i64 / bool on the data-movement, indexing, reduction and nn ops:
// before -> after values per type on one-node graphs, int32 index inputs, and the refusals of a
// type an op does not take (the message names the op and the type).
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "core/element_cast.h"
#include "core/tensor.h"
#include "tests/core/fake_onnx_node.h"
#include "tests/core/op_test_util.h"

namespace pet::test {
namespace {

using Ints = std::vector<int64_t>;

// A tensor of element type D holding `values` (given in D's arithmetic type).
template <DType D>
Tensor typed(const Shape& shape, const std::vector<compute_t<D>>& values) {
  Tensor tensor(D, shape);
  auto out = tensor.mutable_view<D>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = narrow<D>(values[i]);
  return tensor;
}

// Expects a tensor of element type D and `shape` holding exactly `want`.
template <DType D>
void expect_typed(const Tensor& got, const Shape& shape, const std::vector<compute_t<D>>& want) {
  ASSERT_EQ(got.dtype(), D) << "got " << got.type().to_string();
  ASSERT_EQ(got.shape(), shape) << "got " << got.type().to_string();
  auto values = got.view<D>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(widen<D>(values[i]), want[i]) << "element " << i;
}

Attributes axes(Ints list, int64_t keepdims = 0) { return {{"axes", list}, {"keepdims", keepdims}}; }

// ---------------------------------------------------------------- data movement

TEST(ElementTypesTensor, ToDoubleVectorReadsEveryElementAsAsDoubleDoes) {
  Tensor bf16 = typed<DType::bf16>(Shape{3}, {1.5f, -2.0f, 0.25f});
  Tensor flags = typed<DType::boolean>(Shape{2, 2}, {1, 0, 0, 1});
  Tensor big = typed<DType::u64>(Shape{2}, {7, 1ull << 60});
  for (const Tensor* tensor : {&bf16, &flags, &big}) {
    std::vector<double> values = tensor->to_double_vector();
    ASSERT_EQ(values.size(), static_cast<size_t>(tensor->numel()));
    for (int64_t i = 0; i < tensor->numel(); ++i) EXPECT_EQ(values[static_cast<size_t>(i)], tensor->as_double(i));
  }
  EXPECT_EQ(bf16.to_double_vector(), (std::vector<double>{1.5, -2.0, 0.25}));
  EXPECT_EQ(flags.to_double_vector(), (std::vector<double>{1, 0, 0, 1}));
}

TEST(ElementTypesMovement, TransposeOfU8) {
  expect_typed<DType::u8>(run1("Transpose", {{"perm", Ints{1, 0}}}, {typed<DType::u8>({2, 3}, {1, 2, 3, 4, 5, 255})}),
                          {3, 2}, {1, 4, 2, 5, 3, 255});
}

TEST(ElementTypesMovement, TransposeOfBf16MovesTwoByteElements) {
  expect_typed<DType::bf16>(
      run1("Transpose", {{"perm", Ints{1, 0}}}, {typed<DType::bf16>({2, 2}, {1.5f, -2.0f, 0.25f, 3.0f})}), {2, 2},
      {1.5f, 0.25f, -2.0f, 3.0f});
}

TEST(ElementTypesMovement, ConcatOfBf16) {
  expect_typed<DType::bf16>(run1("Concat", {{"axis", int64_t{0}}},
                                 {typed<DType::bf16>({1}, {1.5f}), typed<DType::bf16>({2}, {-2.0f, 0.25f})}),
                            {3}, {1.5f, -2.0f, 0.25f});
}

TEST(ElementTypesMovement, SliceOfBool) {
  Attributes attrs{{"starts", Ints{1}}, {"ends", Ints{4}}, {"steps", Ints{2}}};
  expect_bool(run1("Slice", attrs, {Tensor::boolean({4}, {0, 1, 0, 1})}), {2}, {1, 1});
}

TEST(ElementTypesMovement, SliceImportReadsInt32StartsAndEnds) {
  FakeImportNode node("Slice", 13, {}, {TensorType{DType::i16, {5}}, std::nullopt, std::nullopt},
                      {{1, typed<DType::i32>({1}, {-3})}, {2, typed<DType::i32>({1}, {std::numeric_limits<int32_t>::max()})}});
  Attributes want{{"starts", Ints{2}}, {"ends", Ints{5}}, {"steps", Ints{1}}};
  EXPECT_EQ(import_node(node).attrs, want);
}

// ---------------------------------------------------------------- indexing

TEST(ElementTypesIndexing, GatherOfI32DataWithI32Indices) {
  expect_typed<DType::i32>(
      run1("Gather", {{"axis", int64_t{0}}}, {typed<DType::i32>({3}, {10, 20, -30}), typed<DType::i32>({2}, {2, -3})}),
      {2}, {-30, 10});
}

TEST(ElementTypesIndexing, GatherElementsWithI32Indices) {
  expect_typed<DType::f64>(run1("GatherElements", {{"axis", int64_t{1}}},
                                {typed<DType::f64>({1, 3}, {0.1, 0.2, 0.3}), typed<DType::i32>({1, 2}, {2, 0})}),
                           {1, 2}, {0.3, 0.1});
}

TEST(ElementTypesIndexing, ScatterElementsAddsU16InItsOwnType) {
  Attributes attrs{{"axis", int64_t{0}}, {"reduction", std::string("add")}};
  expect_typed<DType::u16>(run1("ScatterElements", attrs,
                                {typed<DType::u16>({2}, {65535, 7}), typed<DType::i32>({2}, {0, 0}),
                                 typed<DType::u16>({2}, {1, 2})}),
                           {2}, {2, 7});
}

TEST(ElementTypesIndexing, OneHotOfI32IndicesAndI8Values) {
  Attributes attrs{{"axis", int64_t{1}}, {"depth", int64_t{3}}};
  expect_typed<DType::i8>(run1("OneHot", attrs, {typed<DType::i32>({2}, {2, -1}), typed<DType::i8>({2}, {-1, 5})}),
                          {2, 3}, {-1, -1, 5, -1, -1, 5});
}

TEST(ElementTypesIndexing, TopKOfU64KeepsTheLargest) {
  Attributes attrs{{"axis", int64_t{0}}, {"k", int64_t{2}}, {"largest", int64_t{1}}};
  std::vector<Tensor> out = run_op("TopK", attrs, {typed<DType::u64>({3}, {5, UINT64_MAX, 6})});
  expect_typed<DType::u64>(out[0], {2}, {UINT64_MAX, 6});
  expect_i64(out[1], {2}, {1, 2});
}

TEST(ElementTypesIndexing, RangeOfI32) {
  Attributes attrs{{"start", 10.0}, {"limit", 4.0}, {"delta", -3.0}, {"dtype", std::string("i32")}};
  expect_typed<DType::i32>(run1("Range", attrs, {}), {2}, {10, 7});
}

// ---------------------------------------------------------------- reductions

TEST(ElementTypesReduce, ReduceSumOfI32WrapsAsOnnxRuntime) {
  expect_typed<DType::i32>(run1("ReduceSum", axes({0}), {typed<DType::i32>({2}, {INT32_MAX, 2})}), {},
                           {INT32_MIN + 1});
}

TEST(ElementTypesReduce, ReduceMaxAndMinOfU64Extremes) {
  Tensor x = typed<DType::u64>({3}, {0, UINT64_MAX, 5});
  expect_typed<DType::u64>(run1("ReduceMax", axes({0}), {x}), {}, {UINT64_MAX});
  expect_typed<DType::u64>(run1("ReduceMin", axes({0}), {x}), {}, {0});
}

TEST(ElementTypesReduce, ReduceMaxOfU8AndAnEmptyI8Max) {
  expect_typed<DType::u8>(run1("ReduceMax", axes({1}), {typed<DType::u8>({2, 2}, {3, 200, 255, 0})}), {2}, {200, 255});
  expect_typed<DType::i8>(run1("ReduceMax", axes({0}), {Tensor(DType::i8, Shape{0, 2})}), {2}, {-128, -128});
}

TEST(ElementTypesReduce, ReduceLogSumExpOfF64KeepsDoublePrecision) {
  double big = 1000.0;  // exp overflows without the shift; the result needs double's digits
  Tensor got = run1("ReduceLogSumExp", axes({0}), {typed<DType::f64>({2}, {big, big})});
  ASSERT_EQ(got.dtype(), DType::f64);
  EXPECT_DOUBLE_EQ(got.view<DType::f64>()[0], big + std::log(2.0));
}

TEST(ElementTypesReduce, ArgMaxOfI8) {
  Tensor x = typed<DType::i8>({4}, {-128, 127, -1, 127});
  expect_i64(run1("ArgMax", {{"axis", int64_t{0}}, {"keepdims", int64_t{0}}}, {x}), {}, {1});
  expect_i64(run1("ArgMax", {{"axis", int64_t{0}}, {"keepdims", int64_t{0}}, {"select_last_index", int64_t{1}}}, {x}),
             {}, {3});
}

TEST(ElementTypesReduce, CumSumOfF64NeedsDoublePrecision) {
  expect_typed<DType::f64>(run1("CumSum", {{"axis", int64_t{0}}}, {typed<DType::f64>({3}, {1e15, 1, 1})}), {3},
                           {1e15, 1e15 + 1, 1e15 + 2});
}

// ---------------------------------------------------------------- nn

TEST(ElementTypesNn, MaxPoolOfU8) {
  Attributes attrs{
      {"kernel_shape", Ints{2, 2}}, {"strides", Ints{1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"dilations", Ints{1, 1}}};
  expect_typed<DType::u8>(run1("MaxPool", attrs, {typed<DType::u8>({1, 1, 2, 3}, {3, 250, 7, 1, 9, 0})}),
                          {1, 1, 1, 2}, {250, 250});
}

TEST(ElementTypesNn, MatMulOfI32Wraps) {
  expect_typed<DType::i32>(run1("MatMul", {}, {typed<DType::i32>({1, 2}, {INT32_MAX, 3}), typed<DType::i32>({2, 1}, {2, -1})}),
                           {1, 1}, {-5});
}

// ---------------------------------------------------------------- refusals

TEST(ElementTypesRefusal, ReduceSumOfU8IsNotAnOnnxType) {
  expect_user_error([] { add_node_on("ReduceSum", axes({0}), {{DType::u8, {2}}}); },
                    "node 'n' (ReduceSum): input 0 has element type u8, which is not supported by pet's ReduceSum (it "
                    "computes f32, i64, f64, bf16, i32, u32, u64); cast the value to a type it computes in the model, "
                    "or open an issue with this model");
}

TEST(ElementTypesRefusal, GatherNDTakesOnlyI64Indices) {
  expect_user_error([] { add_node_on("GatherND", {}, {{DType::i32, {2, 2}}, {DType::i32, {1, 2}}}); },
                    "node 'n' (GatherND): indices must be i64, got i32[1,2]");
}

TEST(ElementTypesRefusal, SoftmaxOfI32) {
  expect_user_error([] { add_node_on("Softmax", {{"axis", int64_t{0}}}, {{DType::i32, {2}}}); },
                    "node 'n' (Softmax): input 0 has element type i32, which is not supported by pet's Softmax (it "
                    "computes f32, bf16); cast the value to a type it computes in the model, or open an issue with "
                    "this model");
}

TEST(ElementTypesRefusal, MatMulOfMixedTypes) {
  expect_user_error([] { add_node_on("MatMul", {}, {{DType::i32, {1, 2}}, {DType::i64, {2, 1}}}); },
                    "node 'n' (MatMul): expects two operands of one type among f32, f64, bf16, i32, i64, u32, u64, "
                    "got i32[1,2] and i64[2,1]");
}

// ---------------------------------------------------------------- bfloat16 through the f32 kernels

// The f32 op on the bf16 inputs' exact f32 values, each result rounded to bf16: what the bf16 op gives.
void expect_bf16_is_f32_rounded(const std::string& op, const Attributes& attrs, const std::vector<Tensor>& bf16_inputs) {
  std::vector<Tensor> f32_inputs;
  for (const Tensor& input : bf16_inputs) f32_inputs.push_back(input.converted(DType::f32));
  Tensor want = run1(op, attrs, f32_inputs).converted(DType::bf16);
  Tensor got = run1(op, attrs, bf16_inputs);
  ASSERT_EQ(got.type(), want.type()) << op;
  EXPECT_TRUE(got.same_content(want)) << op;
}

TEST(ElementTypesBFloat16, SoftmaxGemmAndLayerNormComputeInFloatAndRoundEachResult) {
  Tensor x = typed<DType::bf16>({2, 3}, {0.5f, -1.25f, 3.0f, 0.1f, 2.5f, -0.75f});
  Tensor w = typed<DType::bf16>({3, 2}, {1.0f, -0.5f, 0.25f, 2.0f, -1.5f, 0.125f});
  Tensor scale = typed<DType::bf16>({3}, {1.0f, 0.5f, 2.0f});
  Tensor bias = typed<DType::bf16>({3}, {0.0f, 0.25f, -1.0f});
  expect_bf16_is_f32_rounded("Softmax", {{"axis", int64_t{1}}}, {x});
  expect_bf16_is_f32_rounded("Gemm", {}, {x, w});
  expect_bf16_is_f32_rounded("LayerNormalization", {{"axis", int64_t{-1}}}, {x, scale, bias});
  Tensor softmax = run1("Softmax", {{"axis", int64_t{1}}}, {x});
  EXPECT_EQ(softmax.dtype(), DType::bf16);
  EXPECT_NE(softmax.view<DType::bf16>()[0].bits, 0);  // rounded values, not zero-filled outputs
}

TEST(ElementTypesBFloat16, GemmMixingBf16AndF32IsRefused) {
  expect_user_error([] { add_node_on("Gemm", {}, {{DType::bf16, {2, 3}}, {DType::f32, {3, 2}}}); },
                    "node 'n' (Gemm): mixes bf16 and f32 inputs; ONNX gives them one type: cast one side in the model");
}

}  // namespace
}  // namespace pet::test
