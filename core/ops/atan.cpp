// Atan: arctangent of x, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Atan() {
  return unary_op("Atan", [](float x, const Attributes&) { return std::atan(x); }, {}, 4.0);
}

}  // namespace pet::ops
