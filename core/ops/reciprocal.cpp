// Reciprocal: 1 / x, elementwise.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Reciprocal() {
  return unary_op<kFloatDTypes>("Reciprocal", [](auto x) { return 1 / x; });
}

}  // namespace pet::ops
