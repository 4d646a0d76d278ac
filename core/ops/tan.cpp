// Tan: tangent of x (radians), elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Tan() {
  return unary_op<kFloatDTypes>("Tan", [](auto x) { return std::tan(x); }, 4.0);
}

}  // namespace pet::ops
