// Min: elementwise minimum of one or more broadcast inputs.
#include <algorithm>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Min() {
  OpTraits traits;
  traits.commutative = true;
  return variadic_op(
      "Min", [](float a, float b) { return std::min(a, b); }, [](int64_t a, int64_t b) { return std::min(a, b); },
      traits);
}

}  // namespace pet::ops
