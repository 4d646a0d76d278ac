// Asinh: inverse hyperbolic sine of x, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Asinh() {
  return unary_op("Asinh", [](float x, const Attributes&) { return std::asinh(x); }, {}, 4.0);
}

}  // namespace pet::ops
