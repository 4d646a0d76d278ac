// IsNaN: whether each float32 element is NaN, as a bool tensor.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_IsNaN() {
  return float_predicate_op("IsNaN", [](float x) { return std::isnan(x); });
}

}  // namespace pet::ops
