// Neg: elementwise negation of f32 or i64; linear.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Neg() {
  OpDef def = numeric_unary_op(
      "Neg", [](float x) { return -x; },
      [](int64_t x) { return static_cast<int64_t>(0ULL - static_cast<uint64_t>(x)); });  // INT64_MIN wraps
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.eval_point = elementwise_point([](const uint64_t* v, int) { return field::neg(v[0]); });
  def.propagate_boxes = elementwise_boxes();
  return def;
}

}  // namespace pet::ops
