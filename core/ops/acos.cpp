// Acos: arccosine of x, elementwise (NaN outside [-1, 1]).
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Acos() {
  return unary_op("Acos", [](float x, const Attributes&) { return std::acos(x); }, {}, 4.0);
}

}  // namespace pet::ops
