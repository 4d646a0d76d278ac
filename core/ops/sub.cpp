// Sub: broadcasting elementwise difference; jointly linear in both inputs.
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Sub() {
  OpTraits traits;
  traits.linearity = Linearity::Joint;
  traits.linear_inputs = {0, 1};
  return binary_op(
      "Sub", [](float a, float b) { return a - b; }, [](int64_t a, int64_t b) { return a - b; }, traits);
}

}  // namespace pet::ops
