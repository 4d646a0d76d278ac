// Cosh: hyperbolic cosine of x, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Cosh() {
  return unary_op<kFloatDTypes>("Cosh", [](auto x) { return std::cosh(x); }, 4.0);
}

}  // namespace pet::ops
