// Abs: elementwise absolute value of f32 or i64.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Abs() {
  return numeric_unary_op(
      "Abs", [](float x) { return std::fabs(x); },
      [](int64_t x) { return x < 0 ? static_cast<int64_t>(0ULL - static_cast<uint64_t>(x)) : x; });
}

}  // namespace pet::ops
