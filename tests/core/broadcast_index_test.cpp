// BroadcastIndex: the offset every output element reads from a broadcast input, by its counter
// (block patterns) or its list (others), against offsets computed from each element's coordinates.
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/ops/elementwise_builders.h"
#include "core/ops/op_util.h"

namespace pet::test {
namespace {

using ops::BroadcastIndex;
using ops::BroadcastRows;

// The input offset of each output element, from its coordinates (numpy's rule, written plainly).
std::vector<int64_t> offsets_by_coordinates(const Shape& input, const Shape& out) {
  std::vector<int64_t> result;
  std::vector<int64_t> strides = input.strides();
  for (int64_t flat = 0; flat < out.numel(); ++flat) {
    int64_t rest = flat, offset = 0;
    for (int axis = out.rank() - 1; axis >= 0; --axis) {
      int64_t coordinate = rest % out[axis];
      rest /= out[axis];
      int own = axis - (out.rank() - input.rank());
      if (own >= 0 && input[own] != 1) offset += coordinate * strides[static_cast<size_t>(own)];
    }
    result.push_back(offset);
  }
  return result;
}

std::vector<int64_t> by_cursor(const BroadcastIndex& index, int64_t count) {
  std::vector<int64_t> result;
  BroadcastIndex::Cursor cursor = index.cursor();
  for (int64_t i = 0; i < count; ++i) result.push_back(static_cast<int64_t>(cursor.next()));
  return result;
}

std::vector<int64_t> by_random_access(const BroadcastIndex& index, int64_t count) {
  std::vector<int64_t> result;
  for (int64_t i = 0; i < count; ++i) result.push_back(index.offset(i));
  return result;
}

void expect_offsets(const Shape& input, const Shape& out, const std::vector<int64_t>& expected) {
  SCOPED_TRACE(fmt::format("{} broadcast to {}", input.to_string(), out.to_string()));
  BroadcastIndex index(input, out);
  EXPECT_EQ(by_cursor(index, out.numel()), expected);
  EXPECT_EQ(by_random_access(index, out.numel()), expected);
}

TEST(BroadcastIndex, EqualShapesReadEachElementInPlace) {
  EXPECT_TRUE(BroadcastIndex(Shape({2, 3}), Shape({2, 3})).identity());
  expect_offsets(Shape({2, 3}), Shape({2, 3}), {0, 1, 2, 3, 4, 5});
}

TEST(BroadcastIndex, ScalarIsReadByEveryElement) {
  expect_offsets(Shape(), Shape({2, 2}), {0, 0, 0, 0});
  expect_offsets(Shape({1, 1}), Shape({3}), {0, 0, 0});
}

TEST(BroadcastIndex, BiasOverTheLastAxisRepeatsPerRow) {
  expect_offsets(Shape({3}), Shape({2, 3}), {0, 1, 2, 0, 1, 2});
}

TEST(BroadcastIndex, RowStatisticRepeatsAlongTheRow) {
  expect_offsets(Shape({2, 1}), Shape({2, 3}), {0, 0, 0, 1, 1, 1});
}

TEST(BroadcastIndex, PerChannelVectorRepeatsPerPlaneAndImage) {
  expect_offsets(Shape({2, 1, 1}), Shape({2, 2, 1, 2}), {0, 0, 1, 1, 0, 0, 1, 1});
}

TEST(BroadcastIndex, UnitAxesInsideTheBlockKeepItOneBlock) {
  expect_offsets(Shape({2, 1, 3}), Shape({2, 2, 1, 3}), {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
}

TEST(BroadcastIndex, BroadcastAxisBetweenKeptAxesIsListed) {
  // [2,1,2] over [2,2,2]: axes 0 and 2 kept, axis 1 broadcast between them.
  expect_offsets(Shape({2, 1, 2}), Shape({2, 2, 2}), {0, 1, 0, 1, 2, 3, 2, 3});
}

TEST(BroadcastIndex, EmptyOutputNeedsNoOffsets) {
  expect_offsets(Shape({3}), Shape({0, 3}), {});
}

// Random shapes of rank up to 5, each axis kept, broadcast or a unit in input and output.
TEST(BroadcastIndex, MatchesCoordinatesOnRandomShapes) {
  for (uint64_t seed = 1; seed <= 500; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937_64 random(seed);
    int rank = static_cast<int>(random() % 6);
    int dropped = rank == 0 ? 0 : static_cast<int>(random() % static_cast<uint64_t>(rank + 1));
    std::vector<int64_t> out_dims, in_dims;
    for (int axis = 0; axis < rank; ++axis) {
      int64_t dim = static_cast<int64_t>(random() % 4);  // 0 sometimes: an empty output
      if (dim == 0 && random() % 4 != 0) dim = 2;
      out_dims.push_back(dim);
      if (axis >= dropped) in_dims.push_back(random() % 2 == 0 ? dim : 1);
    }
    Shape input(in_dims), out(out_dims);
    expect_offsets(input, out, offsets_by_coordinates(input, out));
  }
}

// The offsets BroadcastRows gives, row start plus step for each element of the output's rows.
std::vector<int64_t> by_rows(const Shape& input, const Shape& out) {
  BroadcastRows rows(input, out);
  BroadcastRows::Cursor cursor = rows.cursor();
  int64_t row = out[out.rank() - 1];
  std::vector<int64_t> result;
  for (int64_t start = 0; start < out.numel(); start += row) {
    auto first = static_cast<int64_t>(cursor.next());
    for (int64_t k = 0; k < row; ++k) result.push_back(first + k * rows.step());
  }
  return result;
}

// A random shape of rank 1 to 5 broadcast from a random input: axes kept, broadcast or units.
std::pair<Shape, Shape> random_broadcast(std::mt19937_64& random, int64_t last_at_least) {
  int rank = 1 + static_cast<int>(random() % 5);
  int dropped = static_cast<int>(random() % static_cast<uint64_t>(rank + 1));
  std::vector<int64_t> out_dims, in_dims;
  for (int axis = 0; axis < rank; ++axis) {
    int64_t dim = axis == rank - 1 ? last_at_least + static_cast<int64_t>(random() % 3) : 1 + static_cast<int64_t>(random() % 3);
    out_dims.push_back(dim);
    if (axis >= dropped) in_dims.push_back(random() % 2 == 0 ? dim : 1);
  }
  return {Shape(in_dims), Shape(out_dims)};
}

TEST(BroadcastRows, ARowIsReadAtStepOneWhereTheInputHasTheAxisAndZeroWhereItIsBroadcast) {
  EXPECT_EQ(BroadcastRows(Shape({3}), Shape({2, 3})).step(), 1);    // bias over the last axis
  EXPECT_EQ(BroadcastRows(Shape({2, 1}), Shape({2, 3})).step(), 0);  // row statistic
  EXPECT_EQ(BroadcastRows(Shape(), Shape({2, 3})).step(), 0);        // scalar
  EXPECT_EQ(by_rows(Shape({2, 1}), Shape({2, 3})), (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(by_rows(Shape({2, 1, 2}), Shape({2, 2, 2})), (std::vector<int64_t>{0, 1, 0, 1, 2, 3, 2, 3}));
}

TEST(BroadcastRows, MatchesCoordinatesOnRandomShapes) {
  for (uint64_t seed = 1; seed <= 500; ++seed) {
    std::mt19937_64 random(seed);
    auto [input, out] = random_broadcast(random, 1);
    SCOPED_TRACE(fmt::format("seed {}: {} broadcast to {}", seed, input.to_string(), out.to_string()));
    EXPECT_EQ(by_rows(input, out), offsets_by_coordinates(input, out));
  }
}

// Before: every pair read through a per-element cursor; after: rows of 8 or more as plain loops.
// Both give out[i] = fn(a[offset_a(i)], b[offset_b(i)]), here for float and bool outputs.
TEST(BroadcastRows, MappedPairsMatchPairsReadByCoordinates) {
  auto combine = [](auto p, auto q) { return p * 3 + q; };
  auto less = [](auto p, auto q) { return p < q; };
  int checked = 0, in_rows = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 random(seed);
    auto [a_shape, out] = random_broadcast(random, seed % 2 == 0 ? 8 : 1);
    Shape b_shape = random() % 2 == 0 ? out : random_broadcast(random, 1).first;
    if (b_shape.rank() > 0 && !ops::broadcast_shapes(b_shape, out).has_value()) b_shape = Shape({1});
    if (ops::broadcast_shapes(a_shape, b_shape) != out) continue;
    ++checked;
    in_rows += out[out.rank() - 1] >= ops::kShortestMappedRow && (a_shape != out || b_shape != out);
    SCOPED_TRACE(fmt::format("seed {}: {} and {} to {}", seed, a_shape.to_string(), b_shape.to_string(), out.to_string()));
    Tensor a(DType::f32, a_shape), b(DType::f32, b_shape), sum(DType::f32, out), below(DType::boolean, out);
    for (float& v : a.mutable_f32()) v = static_cast<float>(random() % 17) - 8;
    for (float& v : b.mutable_f32()) v = static_cast<float>(random() % 17) - 8;
    ops::map_broadcast_pairs<DType::f32, DType::f32>(a, b, sum, combine);
    ops::map_broadcast_pairs<DType::f32, DType::boolean>(a, b, below, less);
    std::vector<int64_t> at_a = offsets_by_coordinates(a_shape, out), at_b = offsets_by_coordinates(b_shape, out);
    for (size_t i = 0; i < at_a.size(); ++i) {
      float p = a.f32()[static_cast<size_t>(at_a[i])], q = b.f32()[static_cast<size_t>(at_b[i])];
      ASSERT_EQ(sum.f32()[i], p * 3 + q) << "element " << i;
      ASSERT_EQ(below.b8()[i], p < q ? 1 : 0) << "element " << i;
    }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(in_rows, 30) << "pairs mapped row by row";
}

}  // namespace
}  // namespace pet::test
