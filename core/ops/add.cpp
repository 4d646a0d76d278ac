// Add: broadcasting elementwise sum; jointly linear in both inputs.
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Add() {
  OpTraits traits;
  traits.linearity = Linearity::Joint;
  traits.linear_inputs = {0, 1};
  traits.commutative = true;
  return binary_op(
      "Add", [](float a, float b) { return a + b; }, [](int64_t a, int64_t b) { return a + b; }, traits);
}

}  // namespace pet::ops
