// Acos: arccosine of x, elementwise (NaN outside [-1, 1]).
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Acos() {
  return unary_op<kFloatDTypes>("Acos", [](auto x) { return std::acos(x); }, 4.0);
}

}  // namespace pet::ops
