// Exp: e^x, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Exp() {
  return unary_op("Exp", [](float x, const Attributes&) { return std::exp(x); }, {}, 8.0);
}

}  // namespace pet::ops
