// Sinh: hyperbolic sine of x, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Sinh() {
  return unary_op("Sinh", [](float x, const Attributes&) { return std::sinh(x); }, {}, 4.0);
}

}  // namespace pet::ops
