// Elu: x for x >= 0, alpha * (exp(x) - 1) below, elementwise.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Elu() {
  return unary_op_with_attrs<kFloatDTypes>(
      "Elu", {attr_float("alpha", 1.0)},
      [](const Attributes& attrs) {
        return [alpha = attrs.get_float("alpha")](auto x) {
          return x >= 0 ? x : static_cast<decltype(x)>(alpha) * std::expm1(x);
        };
      },
      4.0);
}

}  // namespace pet::ops
