// Seeded inputs of every element type, and the differential check exact on integers, per-type on floats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/executor.h"
#include "core/text_ir.h"
#include "verifier/differential.h"

namespace pet {
namespace {

Graph one_input(const std::string& type) {
  return parse_graph(R"(graph "one" opset 13 {
    input %x : )" + type + R"(
    %y = Cast[to="f32"](%x) : f32[4096]
    output %y
  })");
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.type() == b.type() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST(RandomInputs, Float32DrawsAreTheOnesEveryGoldenHolds) {
  EXPECT_TRUE(same_bytes(random_inputs(one_input("f32[4096]"), 2026)[0], Tensor::random_f32({4096}, 2026)));
}

TEST(RandomInputs, Uint8CoversItsWholeRangeExtremesIncluded) {
  Tensor x = random_inputs(one_input("u8[4096]"), 2026)[0];
  std::span<const uint8_t> values = x.view<DType::u8>();
  EXPECT_EQ(*std::min_element(values.begin(), values.end()), 0);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 255);
  EXPECT_TRUE(same_bytes(x, random_inputs(one_input("u8[4096]"), 2026)[0])) << "not reproducible from the seed";
  EXPECT_FALSE(same_bytes(x, random_inputs(one_input("u8[4096]"), 2027)[0]));
}

TEST(RandomInputs, Int8And16BitTypesCoverTheirExtremes) {
  auto range = [](DType type) {
    Tensor x = random_input({type, Shape{1 << 18}}, 5);
    double low = x.as_double(0), high = low;
    for (int64_t i = 0; i < x.numel(); ++i) low = std::min(low, x.as_double(i)), high = std::max(high, x.as_double(i));
    return std::pair{low, high};
  };
  EXPECT_EQ(range(DType::i8), (std::pair{-128.0, 127.0}));
  EXPECT_EQ(range(DType::i16), (std::pair{-32768.0, 32767.0}));
  EXPECT_EQ(range(DType::u16), (std::pair{0.0, 65535.0}));
}

TEST(RandomInputs, WideIntegersAreZeroOrOneAndFloatsStayInTheirRange) {
  for (DType type : {DType::i32, DType::u32, DType::u64, DType::i64}) {
    Tensor x = random_input({type, Shape{256}}, 3);
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_TRUE(x.as_int(i) == 0 || x.as_int(i) == 1) << dtype_name(type);
  }
  for (DType type : {DType::f64, DType::bf16}) {
    Tensor x = random_input({type, Shape{1 << 16}}, 3, 0.5);
    for (int64_t i = 0; i < x.numel(); ++i)
      ASSERT_TRUE(x.as_double(i) >= -0.5 && x.as_double(i) < 0.5) << dtype_name(type) << " " << x.as_double(i);
  }
}

Tensor u8(std::vector<uint8_t> values) {
  Tensor tensor(DType::u8, Shape{static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), tensor.mutable_view<DType::u8>().begin());
  return tensor;
}

TEST(DifferentialElementTypes, AnOffByOneInAnIntegerOutputIsAMismatch) {
  OutputDifference difference = compare_outputs("y", u8({0, 7, 255, 3}), u8({0, 8, 255, 3}), Tolerance{});
  EXPECT_FALSE(difference.passed);
  EXPECT_EQ(difference.elements_outside, 1);
  EXPECT_EQ(difference.max_abs_error, 1);
  EXPECT_TRUE(compare_outputs("y", u8({0, 7, 255, 3}), u8({0, 7, 255, 3}), Tolerance{}).passed);
}

TEST(DifferentialElementTypes, LargeInt64ValuesAreComparedExactlyNotWithinAScaledTolerance) {
  // Before: 5000 and 5001 passed (1e-4 * rms 5000 + 1e-3 * 5000 > 1). After: a mismatch.
  EXPECT_FALSE(compare_outputs("n", Tensor::i64({1}, {5000}), Tensor::i64({1}, {5001}), Tolerance{}).passed);
}

// Whether `actual` passes beside `expected`, both one element of `type`.
bool passes(DType type, double expected, double actual, DType computed_in) {
  return compare_outputs("y", Tensor::full(type, {1}, expected), Tensor::full(type, {1}, actual), Tolerance{},
                         computed_in)
      .passed;
}
bool passes(DType type, double expected, double actual) { return passes(type, expected, actual, type); }

TEST(DifferentialElementTypes, Float64IsTightAndBFloat16Loose) {
  EXPECT_TRUE(passes(DType::f32, 1, 1 + 1e-7));
  EXPECT_FALSE(passes(DType::f64, 1, 1 + 1e-7));
  EXPECT_TRUE(passes(DType::f64, 1, 1 + 1e-12));
  // One bfloat16 step at 1 (2^-7) passes; four steps fail.
  EXPECT_TRUE(passes(DType::bf16, 1, 1.0078125));
  EXPECT_FALSE(passes(DType::bf16, 1, 1.03125));
  // f64 computed in f32 (OpenVINO's CPU plugin) is held to f32's tolerance.
  EXPECT_TRUE(passes(DType::f64, 1, 1 + 1e-7, DType::f32));
}

TEST(DifferentialElementTypes, TheSameIntegerGraphIsExactAndAWrappingOneFailsNamingTheType) {
  Graph original = parse_graph(R"(graph "widen" opset 13 {
    input %x : u8[64]
    %y = Cast[to="i32"](%x) : i32[64]
    output %y
  })");
  Graph through_i16 = parse_graph(R"(graph "widen" opset 13 {
    input %x : u8[64]
    %h = Cast[to="i16"](%x) : i16[64]
    %y = Cast[to="i32"](%h) : i32[64]
    output %y
  })");
  Graph through_i8 = parse_graph(R"(graph "widen" opset 13 {
    input %x : u8[64]
    %h = Cast[to="i8"](%x) : i8[64]
    %y = Cast[to="i32"](%h) : i32[64]
    output %y
  })");
  DifferentialReport exact = differential(original, through_i16, 2026);
  EXPECT_TRUE(exact.passed) << exact.summary();
  EXPECT_EQ(exact.max_abs_error(), 0);
  DifferentialReport wrapped = differential(original, through_i8, 2026);
  ASSERT_FALSE(wrapped.passed);
  EXPECT_EQ(wrapped.outputs[0].dtype, DType::i32);
  // The 37 draws of 128..255 among 64 wrap to negative values through i8.
  EXPECT_EQ(wrapped.failure_reason(),
            "the optimized model computes different values (max abs error 256): 'y' (i32): 37 of 64 elements differ "
            "(compared exactly)");
}

TEST(DifferentialElementTypes, TheRedrawShrinksFloatInputsOnlyAndTheFloat32OnesAsBefore) {
  Graph graph = parse_graph(R"(graph "mixed" opset 13 {
    input %x : f32[8]
    input %d : f64[8]
    input %b : u8[8]
    %y = Cast[to="f32"](%b) : f32[8]
    output %y
  })");
  std::vector<Tensor> drawn = random_inputs(graph, 9);
  EXPECT_TRUE(same_bytes(random_input(drawn[0].type(), 9, kRedrawInputRange),
                         Tensor::random_f32({8}, 9, -1.0f / 64, 1.0f / 64)));
  Tensor small = random_input(drawn[1].type(), 10, kRedrawInputRange);
  for (int64_t i = 0; i < 8; ++i) EXPECT_LT(std::abs(small.as_double(i)), kRedrawInputRange);
}

}  // namespace
}  // namespace pet
