// Sqrt: square root, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Sqrt() {
  return unary_op("Sqrt", [](float x, const Attributes&) { return std::sqrt(x); }, {}, 4.0);
}

}  // namespace pet::ops
