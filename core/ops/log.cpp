// Log: natural logarithm, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Log() {
  return unary_op("Log", [](float x, const Attributes&) { return std::log(x); }, {}, 8.0);
}

}  // namespace pet::ops
