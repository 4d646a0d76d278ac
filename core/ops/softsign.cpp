// Softsign: x / (1 + |x|), elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Softsign() {
  return unary_op("Softsign", [](float x, const Attributes&) { return x / (1.0f + std::fabs(x)); }, {}, 3.0);
}

}  // namespace pet::ops
