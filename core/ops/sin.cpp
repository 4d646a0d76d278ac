// Sin: sine of x (radians), elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Sin() {
  return unary_op("Sin", [](float x, const Attributes&) { return std::sin(x); }, {}, 4.0);
}

}  // namespace pet::ops
