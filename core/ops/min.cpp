// Min: elementwise minimum of one or more broadcast inputs.
#include <algorithm>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Min() {
  OpTraits traits;
  traits.commutative = true;
  return variadic_op<kNumericDTypes>("Min", [](auto a, auto b) { return std::min(a, b); }, traits);
}

}  // namespace pet::ops
