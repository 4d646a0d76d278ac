// Asin: arcsine of x, elementwise (NaN outside [-1, 1]).
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Asin() {
  return unary_op("Asin", [](float x, const Attributes&) { return std::asin(x); }, {}, 4.0);
}

}  // namespace pet::ops
