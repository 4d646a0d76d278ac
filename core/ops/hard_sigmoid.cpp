// HardSigmoid: clamp(alpha * x + beta, 0, 1), elementwise.
#include <algorithm>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

template <typename T>
static T hard_sigmoid(T x, T alpha, T beta) {
  return std::clamp(alpha * x + beta, T{0}, T{1});
}

OpDef make_HardSigmoid() {
  return unary_op_with_attrs<kFloatDTypes>(
      "HardSigmoid", {attr_float("alpha", 0.2), attr_float("beta", 0.5)},
      [](const Attributes& attrs) {
        return [alpha = attrs.get_float("alpha"), beta = attrs.get_float("beta")](auto x) {
          using T = decltype(x);
          return hard_sigmoid(x, static_cast<T>(alpha), static_cast<T>(beta));
        };
      },
      4.0);
}

}  // namespace pet::ops
