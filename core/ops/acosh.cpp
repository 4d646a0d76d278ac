// Acosh: inverse hyperbolic cosine of x, elementwise (NaN below 1).
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Acosh() {
  return unary_op("Acosh", [](float x, const Attributes&) { return std::acosh(x); }, {}, 4.0);
}

}  // namespace pet::ops
