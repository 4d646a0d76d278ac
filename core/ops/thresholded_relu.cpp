// ThresholdedRelu: x where x > alpha, 0 elsewhere, elementwise.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_ThresholdedRelu() {
  return unary_op_with_attrs<kFloatDTypes>("ThresholdedRelu", {attr_float("alpha", 1.0)}, [](const Attributes& attrs) {
    return [alpha = attrs.get_float("alpha")](auto x) { return x > static_cast<decltype(x)>(alpha) ? x : 0; };
  });
}

}  // namespace pet::ops
