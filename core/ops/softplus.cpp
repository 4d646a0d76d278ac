// Softplus: log(1 + exp(x)), elementwise, computed without overflow for large x.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

static float softplus(float x) { return x > 0.0f ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

OpDef make_Softplus() {
  return unary_op("Softplus", [](float x, const Attributes&) { return softplus(x); }, {}, 4.0);
}

}  // namespace pet::ops
