// Sign: -1, 0 or 1 by the sign of x, elementwise on any numeric type (NaN stays NaN).
#include <type_traits>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

template <typename T>
static T sign_of(T x) {
  if (x > T{0}) return T{1};
  if constexpr (std::is_signed_v<T>)
    if (x < T{0}) return T{-1};
  return x;  // zero, or NaN for floats
}

OpDef make_Sign() {
  return unary_op<kNumericDTypes>("Sign", [](auto x) { return sign_of(x); });
}

}  // namespace pet::ops
