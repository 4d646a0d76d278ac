// Sum: elementwise sum of one or more broadcast inputs; jointly linear in all of them.
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Sum() {
  OpTraits traits;
  traits.linearity = Linearity::Joint;
  for (int i = 0; i < kMaxVariadicInputs; ++i) traits.linear_inputs.push_back(i);
  traits.commutative = true;
  return variadic_op(
      "Sum", [](float a, float b) { return a + b; }, [](int64_t a, int64_t b) { return a + b; }, traits);
}

}  // namespace pet::ops
