// Cos: cosine of x (radians), elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Cos() {
  return unary_op("Cos", [](float x, const Attributes&) { return std::cos(x); }, {}, 4.0);
}

}  // namespace pet::ops
