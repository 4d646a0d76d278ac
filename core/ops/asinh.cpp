// Asinh: inverse hyperbolic sine of x, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Asinh() {
  return unary_op<kFloatDTypes>("Asinh", [](auto x) { return std::asinh(x); }, 4.0);
}

}  // namespace pet::ops
