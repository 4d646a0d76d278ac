// Softsign: x / (1 + |x|), elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Softsign() {
  return unary_op<kFloatDTypes>("Softsign", [](auto x) { return x / (1 + std::fabs(x)); }, 3.0);
}

}  // namespace pet::ops
