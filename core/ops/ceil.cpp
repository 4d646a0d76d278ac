// Ceil: the smallest integer not below x, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Ceil() {
  return unary_op<kFloatDTypes>("Ceil", [](auto x) { return std::ceil(x); });
}

}  // namespace pet::ops
