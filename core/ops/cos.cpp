// Cos: cosine of x (radians), elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Cos() {
  return unary_op<kFloatDTypes>("Cos", [](auto x) { return std::cos(x); }, 4.0);
}

}  // namespace pet::ops
