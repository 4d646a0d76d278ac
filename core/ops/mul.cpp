// Mul: broadcasting elementwise product; linear in each input separately.
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Mul() {
  OpTraits traits;
  traits.linearity = Linearity::Multilinear;
  traits.linear_inputs = {0, 1};
  traits.commutative = true;
  return binary_op(
      "Mul", [](float a, float b) { return a * b; }, [](int64_t a, int64_t b) { return a * b; }, traits);
}

}  // namespace pet::ops
