// Asin: arcsine of x, elementwise (NaN outside [-1, 1]).
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Asin() {
  return unary_op<kFloatDTypes>("Asin", [](auto x) { return std::asin(x); }, 4.0);
}

}  // namespace pet::ops
