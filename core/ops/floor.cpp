// Floor: the largest integer not above x, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Floor() {
  return unary_op("Floor", [](float x, const Attributes&) { return std::floor(x); });
}

}  // namespace pet::ops
