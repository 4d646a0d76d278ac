// Floor: the largest integer not above x, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Floor() {
  return unary_op<kFloatDTypes>("Floor", [](auto x) { return std::floor(x); });
}

}  // namespace pet::ops
