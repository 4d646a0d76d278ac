// Elementwise ops on the element types beyond f32/i64/bool: integers wrap at their width, integer
// division truncates and never traps, bf16 rounds each result, f64 keeps double precision, u64
// compares unsigned; before -> after values per type, and the refusals that name op and type.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/element_cast.h"
#include "tests/core/op_test_util.h"

namespace pet::test {
namespace {

// A tensor of type D holding `values` (given in D's compute type).
template <DType D>
Tensor typed(std::vector<compute_t<D>> values) {
  Tensor tensor(D, Shape{static_cast<int64_t>(values.size())});
  auto slots = tensor.mutable_view<D>();
  for (size_t i = 0; i < values.size(); ++i) slots[i] = narrow<D>(values[i]);
  return tensor;
}

// The elements of a tensor of type D, in D's compute type.
template <DType D>
std::vector<compute_t<D>> values(const Tensor& tensor) {
  EXPECT_EQ(tensor.dtype(), D) << "got " << dtype_name(tensor.dtype());
  std::vector<compute_t<D>> result;
  if (tensor.dtype() != D) return result;
  for (storage_t<D> element : tensor.view<D>()) result.push_back(widen<D>(element));
  return result;
}

template <typename T>
std::vector<T> list(std::initializer_list<T> items) {
  return items;
}

Attributes fmod(int64_t value) { return {{"fmod", value}}; }

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// ---------------------------------------------------------------- integers wrap

TEST(ElementTypesArithmetic, IntegersWrapAtTheirWidth) {
  using D = DType;
  EXPECT_EQ(values<D::u8>(run1("Add", {}, {typed<D::u8>({200, 255}), typed<D::u8>({100, 1})})), list<uint8_t>({44, 0}));
  EXPECT_EQ(values<D::u8>(run1("Sub", {}, {typed<D::u8>({0}), typed<D::u8>({1})})), list<uint8_t>({255}));
  EXPECT_EQ(values<D::i8>(run1("Sub", {}, {typed<D::i8>({-128}), typed<D::i8>({1})})), list<int8_t>({127}));
  EXPECT_EQ(values<D::i8>(run1("Add", {}, {typed<D::i8>({127}), typed<D::i8>({1})})), list<int8_t>({-128}));
  EXPECT_EQ(values<D::u16>(run1("Mul", {}, {typed<D::u16>({65535}), typed<D::u16>({65535})})), list<uint16_t>({1}));
  EXPECT_EQ(values<D::i32>(run1("Mul", {}, {typed<D::i32>({65536}), typed<D::i32>({65536})})), list<int32_t>({0}));
  EXPECT_EQ(values<D::i64>(run1("Add", {}, {typed<D::i64>({kI64Max}), typed<D::i64>({1})})), list<int64_t>({kI64Min}));
  EXPECT_EQ(values<D::u64>(run1("Add", {}, {typed<D::u64>({kU64Max}), typed<D::u64>({2})})), list<uint64_t>({1}));
}

TEST(ElementTypesArithmetic, BroadcastingKeepsTheType) {
  Tensor rows = Tensor(DType::i16, Shape{2, 1});
  rows.mutable_view<DType::i16>()[1] = 10;
  Tensor sum = run1("Add", {}, {rows, typed<DType::i16>({1, 2, 3})});
  EXPECT_EQ(sum.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<DType::i16>(sum), list<int16_t>({1, 2, 3, 11, 12, 13}));
}

TEST(ElementTypesArithmetic, UnaryOpsOnSignedExtremes) {
  using D = DType;
  EXPECT_EQ(values<D::i8>(run1("Neg", {}, {typed<D::i8>({-128, 5})})), list<int8_t>({-128, -5}));
  EXPECT_EQ(values<D::i8>(run1("Abs", {}, {typed<D::i8>({-128, -5})})), list<int8_t>({-128, 5}));
  EXPECT_EQ(values<D::i8>(run1("Relu", {}, {typed<D::i8>({-3, 4})})), list<int8_t>({0, 4}));
  EXPECT_EQ(values<D::u8>(run1("Sign", {}, {typed<D::u8>({0, 7})})), list<uint8_t>({0, 1}));
  EXPECT_EQ(values<D::i32>(run1("Sign", {}, {typed<D::i32>({-9, 0, 9})})), list<int32_t>({-1, 0, 1}));
}

// ---------------------------------------------------------------- division and remainders

TEST(ElementTypesArithmetic, IntegerDivisionTruncatesAndNeverTraps) {
  using D = DType;
  // x / 0 gives 0 and INT_MIN / -1 wraps to INT_MIN (ONNX leaves both undefined).
  EXPECT_EQ(values<D::i32>(run1("Div", {},
                                {typed<D::i32>({7, -7, 7, -7, 5, kI32Min}), typed<D::i32>({2, 2, -2, -2, 0, -1})})),
            list<int32_t>({3, -3, -3, 3, 0, kI32Min}));
  EXPECT_EQ(values<D::u8>(run1("Div", {}, {typed<D::u8>({200, 9}), typed<D::u8>({3, 0})})), list<uint8_t>({66, 0}));
  EXPECT_EQ(values<D::i64>(run1("Div", {}, {typed<D::i64>({kI64Min}), typed<D::i64>({-1})})), list<int64_t>({kI64Min}));
}

TEST(ElementTypesArithmetic, ModTakesTheDivisorsSignUnlessFmod) {
  using D = DType;
  Tensor a = typed<D::i8>({7, -7, 7, -7, 5, -128}), b = typed<D::i8>({3, 3, -3, -3, 0, -1});
  EXPECT_EQ(values<D::i8>(run1("Mod", fmod(0), {a, b})), list<int8_t>({1, 2, -2, -1, 0, 0}));
  EXPECT_EQ(values<D::i8>(run1("Mod", fmod(1), {a, b})), list<int8_t>({1, -1, 1, -1, 0, 0}));
  EXPECT_EQ(values<D::u32>(run1("Mod", fmod(0), {typed<D::u32>({4000000000u}), typed<D::u32>({7})})),
            list<uint32_t>({4000000000u % 7}));
  EXPECT_EQ(values<D::f64>(run1("Mod", fmod(1), {typed<D::f64>({-4.3, 7.5}), typed<D::f64>({2.1, -2})})),
            list<double>({std::fmod(-4.3, 2.1), 1.5}));
}

// ---------------------------------------------------------------- comparisons, Max/Min, Clip

TEST(ElementTypesCompare, U64ComparesUnsigned) {
  using D = DType;
  Tensor big = typed<D::u64>({kU64Max, 0}), one = typed<D::u64>({1, 1});
  EXPECT_EQ(values<D::u64>(run1("Max", {}, {big, one})), list<uint64_t>({kU64Max, 1}));
  EXPECT_EQ(values<D::u64>(run1("Min", {}, {big, one})), list<uint64_t>({1, 0}));
  expect_bool(run1("Greater", {}, {big, one}), {2}, {1, 0});
  // As doubles 2^64 - 1 and 2^64 - 2 would both read 2^64 and compare equal.
  expect_bool(run1("Equal", {}, {typed<D::u64>({kU64Max}), typed<D::u64>({kU64Max - 1})}), {1}, {0});
}

TEST(ElementTypesCompare, ComparisonsGiveBoolForEveryType) {
  using D = DType;
  expect_bool(run1("Less", {}, {typed<D::i8>({-1, 1}), typed<D::i8>({1, -1})}), {2}, {1, 0});
  expect_bool(run1("LessOrEqual", {}, {typed<D::u16>({3, 4}), typed<D::u16>({3, 3})}), {2}, {1, 0});
  expect_bool(run1("GreaterOrEqual", {}, {typed<D::bf16>({1.5f}), typed<D::bf16>({1.5f})}), {1}, {1});
  expect_bool(run1("Equal", {}, {typed<D::i32>({5, 6}), typed<D::i32>({5, 5})}), {2}, {1, 0});
}

TEST(ElementTypesCompare, ClipSaturatesItsBoundsToTheType) {
  using D = DType;
  Attributes bounds{{"min", -5.0}, {"max", 5.0}};
  EXPECT_EQ(values<D::i8>(run1("Clip", bounds, {typed<D::i8>({-128, 0, 127})})), list<int8_t>({-5, 0, 5}));
  // A bound below u8's range reads as 0; the infinite default max as 255.
  EXPECT_EQ(values<D::u8>(run1("Clip", {{"min", -300.0}}, {typed<D::u8>({0, 255})})), list<uint8_t>({0, 255}));
  EXPECT_EQ(values<D::f64>(run1("Clip", {{"max", 0.25}}, {typed<D::f64>({0.1, 0.3})})), list<double>({0.1, 0.25}));
}

// ---------------------------------------------------------------- floats: bf16 rounds, f64 keeps

TEST(ElementTypesFloat, Bf16RoundsEachResultToNearestEven) {
  using D = DType;
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (bf16's step at 1) and goes to even 1;
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6 and goes to even 1 + 2^-6.
  Tensor ones = typed<D::bf16>({1, 1}), small = typed<D::bf16>({0.00390625f, 0.01171875f});
  EXPECT_EQ(values<D::bf16>(run1("Add", {}, {ones, small})), list<float>({1.0f, 1.015625f}));
  // Sum rounds after each input: 1 + 2^-8 + 2^-8 stays 1 (in float it would reach 1 + 2^-7).
  EXPECT_EQ(values<D::bf16>(run1("Sum", {}, {ones, small, small})), list<float>({1.0f, 1.03125f}));
  EXPECT_EQ(values<D::bf16>(run1("Sqrt", {}, {typed<D::bf16>({4, 2})})), list<float>({2.0f, 1.4140625f}));
}

TEST(ElementTypesFloat, F64KeepsPrecisionBeyondFloat) {
  using D = DType;
  Tensor one = typed<D::f64>({1}), tiny = typed<D::f64>({1e-12});
  Tensor sum = run1("Add", {}, {one, tiny});
  EXPECT_EQ(values<D::f64>(sum), list<double>({1.0 + 1e-12}));
  expect_bool(run1("Equal", {}, {sum, one}), {1}, {0});
  EXPECT_EQ(values<D::f64>(run1("Sub", {}, {sum, one})), list<double>({(1.0 + 1e-12) - 1.0}));
  EXPECT_EQ(values<D::f64>(run1("Exp", {}, {one})), list<double>({std::exp(1.0)}));
  EXPECT_EQ(values<D::f64>(run1("Mean", {}, {one, tiny})), list<double>({(1.0 + 1e-12) / 2}));
  expect_bool(run1("IsNaN", {}, {typed<D::f64>({NAN, 1})}), {2}, {1, 0});
  expect_bool(run1("IsInf", {{"detect_negative", int64_t{0}}}, {typed<D::bf16>({-INFINITY, INFINITY})}), {2}, {0, 1});
}

// ---------------------------------------------------------------- Pow's mixed types, Where

TEST(ElementTypesPow, BaseAndExponentTypesMix) {
  using D = DType;
  // The result has the base's type; an integer power wraps, a float exponent truncates.
  EXPECT_EQ(values<D::i32>(run1("Pow", {}, {typed<D::i32>({2, 3}), typed<D::i64>({31, 2})})),
            list<int32_t>({kI32Min, 9}));
  EXPECT_EQ(values<D::i32>(run1("Pow", {}, {typed<D::i32>({3, 2}), typed<D::f32>({0.5f, -1})})), list<int32_t>({1, 0}));
  EXPECT_EQ(values<D::f32>(run1("Pow", {}, {typed<D::f32>({2, 1.5f}), typed<D::u64>({3, 2})})), list<float>({8, 2.25f}));
  EXPECT_EQ(values<D::f64>(run1("Pow", {}, {typed<D::f64>({2}), typed<D::u8>({60})})), list<double>({std::ldexp(1.0, 60)}));
}

TEST(ElementTypesWhere, ChoosesElementsOfAnyType) {
  using D = DType;
  Tensor condition = Tensor::boolean({3}, {1, 0, 1});
  EXPECT_EQ(values<D::u16>(run1("Where", {}, {condition, typed<D::u16>({1, 2, 3}), typed<D::u16>({7, 8, 9})})),
            list<uint16_t>({1, 8, 3}));
  EXPECT_EQ(values<D::bf16>(run1("Where", {}, {condition, typed<D::bf16>({1, 2, 3}), typed<D::bf16>({-1})})),
            list<float>({1, -1, 3}));
}

// ---------------------------------------------------------------- refusals

TEST(ElementTypesErrors, TypesAnOpDoesNotTakeAreNamed) {
  expect_user_error([] { add_node_on("Neg", {}, {{DType::u8, {2}}}); },
                    "node 'n' (Neg): input 0 has element type u8, which is not supported by pet's Neg (it computes f32, "
                    "i64, f64, bf16, i8, i16, i32); cast the value to a type it computes in the model, or open an "
                    "issue with this model");
  expect_user_error([] { add_node_on("Exp", {}, {{DType::i32, {2}}}); },
                    "node 'n' (Exp): input 0 has element type i32, which is not supported by pet's Exp (it computes f32, "
                    "f64, bf16); cast the value to a type it computes in the model, or open an issue with this model");
  expect_user_error([] { add_node_on("Pow", {}, {{DType::u8, {2}}, {DType::u8, {2}}}); },
                    "node 'n' (Pow): does not support element type u8");
  expect_user_error([] { add_node_on("Add", {}, {{DType::u8, {2}}, {DType::i8, {2}}}); },
                    "node 'n' (Add): input types differ: u8[2] and i8[2]");
  expect_user_error([] { add_node_on("Mod", {}, {{DType::f64, {2}}, {DType::f64, {2}}}); },
                    "node 'n' (Mod): f64 inputs need fmod = 1 (ONNX defines fmod = 0 for integers only)");
  expect_user_error([] { add_node_on("Celu", {}, {{DType::f64, {2}}}); },
                    "node 'n' (Celu): input 0 has element type f64, which is not supported by pet's Celu (it computes "
                    "f32); cast the value to a type it computes in the model, or open an issue with this model");
}

}  // namespace
}  // namespace pet::test
