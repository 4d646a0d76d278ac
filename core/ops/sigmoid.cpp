// Sigmoid: 1 / (1 + e^-x), elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

// Evaluated so that exp never overflows, for large inputs of either sign.
static float logistic(float x) {
  if (x >= 0.0f) return 1.0f / (1.0f + std::exp(-x));
  float e = std::exp(x);
  return e / (1.0f + e);
}

OpDef make_Sigmoid() {
  return unary_op("Sigmoid", [](float x, const Attributes&) { return logistic(x); }, {}, 10.0);
}

}  // namespace pet::ops
