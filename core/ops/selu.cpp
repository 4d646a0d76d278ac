// Selu: gamma * x for x > 0, gamma * alpha * (exp(x) - 1) otherwise, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

template <typename T>
static T selu(T x, T alpha, T gamma) {
  return gamma * (x > 0 ? x : alpha * std::expm1(x));
}

OpDef make_Selu() {
  return unary_op_with_attrs<kFloatDTypes>(
      "Selu", {attr_float("alpha", 1.67326319217681884765625), attr_float("gamma", 1.05070102214813232421875)},
      [](const Attributes& attrs) {
        return [alpha = attrs.get_float("alpha"), gamma = attrs.get_float("gamma")](auto x) {
          using T = decltype(x);
          return selu(x, static_cast<T>(alpha), static_cast<T>(gamma));
        };
      },
      5.0);
}

}  // namespace pet::ops
