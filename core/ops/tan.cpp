// Tan: tangent of x (radians), elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Tan() {
  return unary_op("Tan", [](float x, const Attributes&) { return std::tan(x); }, {}, 4.0);
}

}  // namespace pet::ops
