// Max: elementwise maximum of one or more broadcast inputs.
#include <algorithm>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Max() {
  OpTraits traits;
  traits.commutative = true;
  return variadic_op(
      "Max", [](float a, float b) { return std::max(a, b); }, [](int64_t a, int64_t b) { return std::max(a, b); },
      traits);
}

}  // namespace pet::ops
