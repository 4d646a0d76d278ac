// Round: x rounded to the nearest integer, halves to even, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Round() {
  return unary_op("Round", [](float x, const Attributes&) { return std::nearbyint(x); });
}

}  // namespace pet::ops
