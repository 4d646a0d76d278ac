// Round: x rounded to the nearest integer, halves to even, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Round() {
  return unary_op<kFloatDTypes>("Round", [](auto x) { return std::nearbyint(x); });
}

}  // namespace pet::ops
