// Ceil: the smallest integer not below x, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Ceil() {
  return unary_op("Ceil", [](float x, const Attributes&) { return std::ceil(x); });
}

}  // namespace pet::ops
