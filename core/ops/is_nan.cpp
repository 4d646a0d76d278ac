// IsNaN: whether each float element is NaN, as a bool tensor.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_IsNaN() {
  return predicate_op<kFloatDTypes>("IsNaN", [](auto x) { return std::isnan(x); });
}

}  // namespace pet::ops
