// The differential check's tolerance: scaled by the output's magnitude, so summation-order
// rounding in a large output passes while the same error in a small one does not.
#include <gtest/gtest.h>

#include "verifier/differential.h"

namespace pet::testing {
namespace {

// An output of `size` elements of magnitude `magnitude`, one of them cancelled to zero.
Tensor output_with_zero(float magnitude, int64_t size) {
  std::vector<float> values(static_cast<size_t>(size));
  for (size_t i = 0; i < values.size(); ++i) values[i] = (i % 2 ? -1.0f : 1.0f) * magnitude;
  values[0] = 0;
  return Tensor::f32(Shape({size}), values);
}

TEST(DifferentialTolerance, RoundingNearZeroInALargeOutputPasses) {
  Tensor expected = output_with_zero(4096, 64), actual = expected;
  actual.mutable_f32()[0] = 0.001953125f;  // one float32 ulp of 4096 (a different summation order)
  OutputDifference difference = compare_outputs("y", expected, actual, Tolerance{});
  EXPECT_TRUE(difference.passed);
  EXPECT_EQ(difference.max_abs_error, 0.001953125);
}

TEST(DifferentialTolerance, TheSameErrorInASmallOutputFails) {
  Tensor expected = output_with_zero(0.5f, 64), actual = expected;
  actual.mutable_f32()[0] = 0.001953125f;
  OutputDifference difference = compare_outputs("y", expected, actual, Tolerance{});
  EXPECT_FALSE(difference.passed);
  EXPECT_EQ(difference.elements_outside, 1);
}

TEST(DifferentialTolerance, AWrongElementInALargeOutputFails) {
  Tensor expected = output_with_zero(4096, 64), actual = expected;
  actual.mutable_f32()[3] += 8;  // far beyond the rounding of terms of this size
  EXPECT_FALSE(compare_outputs("y", expected, actual, Tolerance{}).passed);
}

}  // namespace
}  // namespace pet::testing
