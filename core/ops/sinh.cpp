// Sinh: hyperbolic sine of x, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Sinh() {
  return unary_op<kFloatDTypes>("Sinh", [](auto x) { return std::sinh(x); }, 4.0);
}

}  // namespace pet::ops
