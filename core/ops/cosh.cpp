// Cosh: hyperbolic cosine of x, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Cosh() {
  return unary_op("Cosh", [](float x, const Attributes&) { return std::cosh(x); }, {}, 4.0);
}

}  // namespace pet::ops
