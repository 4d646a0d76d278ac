// Atanh: inverse hyperbolic tangent of x, elementwise (NaN outside [-1, 1]).
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Atanh() {
  return unary_op<kFloatDTypes>("Atanh", [](auto x) { return std::atanh(x); }, 4.0);
}

}  // namespace pet::ops
