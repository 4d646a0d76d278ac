// LeakyRelu: x for x >= 0, alpha * x below, elementwise.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_LeakyRelu() {
  return unary_op_with_attrs<kFloatDTypes>(
      "LeakyRelu", {attr_float("alpha", 0.01)},
      [](const Attributes& attrs) {
        return [alpha = attrs.get_float("alpha")](auto x) { return x >= 0 ? x : static_cast<decltype(x)>(alpha) * x; };
      },
      2.0);
}

}  // namespace pet::ops
