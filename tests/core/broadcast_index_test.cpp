// BroadcastIndex: the offset every output element reads from a broadcast input, by its counter
// (block patterns) or its list (others), against offsets computed from each element's coordinates.
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/ops/op_util.h"

namespace pet::test {
namespace {

using ops::BroadcastIndex;

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

}  // namespace
}  // namespace pet::test
