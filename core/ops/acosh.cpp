// Acosh: inverse hyperbolic cosine of x, elementwise (NaN below 1).
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Acosh() {
  return unary_op<kFloatDTypes>("Acosh", [](auto x) { return std::acosh(x); }, 4.0);
}

}  // namespace pet::ops
