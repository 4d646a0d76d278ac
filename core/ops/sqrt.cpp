// Sqrt: square root, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Sqrt() {
  return unary_op<kFloatDTypes>("Sqrt", [](auto x) { return std::sqrt(x); }, 4.0);
}

}  // namespace pet::ops
