// Atan: arctangent of x, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Atan() {
  return unary_op<kFloatDTypes>("Atan", [](auto x) { return std::atan(x); }, 4.0);
}

}  // namespace pet::ops
