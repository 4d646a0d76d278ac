// Abs: elementwise absolute value of any numeric type (INT_MIN wraps to itself).
#include <cmath>
#include <type_traits>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

template <typename T>
static T absolute(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
  else if constexpr (std::is_signed_v<T>) return x < 0 ? wrapping_neg(x) : x;
  else return x;
}

OpDef make_Abs() {
  return unary_op<kNumericDTypes>("Abs", [](auto x) { return absolute(x); });
}

}  // namespace pet::ops
