// Log: natural logarithm, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Log() {
  return unary_op<kFloatDTypes>("Log", [](auto x) { return std::log(x); }, 8.0);
}

}  // namespace pet::ops
