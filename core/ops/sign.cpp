// Sign: -1, 0 or 1 by the sign of x, elementwise on f32 and i64 (NaN stays NaN).
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

template <typename T>
static T sign_of(T x) {
  if (x > T{0}) return T{1};
  if (x < T{0}) return T{-1};
  return x;  // zero, or NaN for floats
}

OpDef make_Sign() { return numeric_unary_op("Sign", sign_of<float>, sign_of<int64_t>); }

}  // namespace pet::ops
