// Max: elementwise maximum of one or more broadcast inputs.
#include <algorithm>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Max() {
  OpTraits traits;
  traits.commutative = true;
  return variadic_op<kNumericDTypes>("Max", [](auto a, auto b) { return std::max(a, b); }, traits);
}

}  // namespace pet::ops
