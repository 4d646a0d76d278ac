// Neg: elementwise negation of f32 or i64; linear.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Neg() {
  OpDef def = numeric_unary_op(
      "Neg", [](float x) { return -x; },
      [](int64_t x) { return static_cast<int64_t>(0ULL - static_cast<uint64_t>(x)); });  // INT64_MIN wraps
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  return def;
}

}  // namespace pet::ops
