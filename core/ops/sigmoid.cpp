// Sigmoid: 1 / (1 + e^-x), elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

// Evaluated so that exp never overflows, for large inputs of either sign.
template <typename T>
static T logistic(T x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  T e = std::exp(x);
  return e / (1 + e);
}

OpDef make_Sigmoid() {
  return unary_op<kFloatDTypes>("Sigmoid", [](auto x) { return logistic(x); }, 10.0);
}

}  // namespace pet::ops
