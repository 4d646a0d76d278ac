// Atanh: inverse hyperbolic tangent of x, elementwise (NaN outside [-1, 1]).
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Atanh() {
  return unary_op("Atanh", [](float x, const Attributes&) { return std::atanh(x); }, {}, 4.0);
}

}  // namespace pet::ops
