// Tanh: hyperbolic tangent, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Tanh() {
  return unary_op("Tanh", [](float x, const Attributes&) { return std::tanh(x); }, {}, 8.0);
}

}  // namespace pet::ops
