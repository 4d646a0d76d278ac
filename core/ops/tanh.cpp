// Tanh: hyperbolic tangent, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Tanh() {
  return unary_op<kFloatDTypes>("Tanh", [](auto x) { return std::tanh(x); }, 8.0);
}

}  // namespace pet::ops
