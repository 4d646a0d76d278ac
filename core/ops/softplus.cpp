// Softplus: log(1 + exp(x)), elementwise, computed without overflow for large x.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

template <typename T>
static T softplus(T x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

OpDef make_Softplus() {
  return unary_op<kFloatDTypes>("Softplus", [](auto x) { return softplus(x); }, 4.0);
}

}  // namespace pet::ops
