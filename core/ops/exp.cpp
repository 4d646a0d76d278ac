// Exp: e^x, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Exp() {
  return unary_op<kFloatDTypes>("Exp", [](auto x) { return std::exp(x); }, 8.0);
}

}  // namespace pet::ops
