// Sin: sine of x (radians), elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Sin() {
  return unary_op<kFloatDTypes>("Sin", [](auto x) { return std::sin(x); }, 4.0);
}

}  // namespace pet::ops
