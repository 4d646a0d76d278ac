// Neg: elementwise negation of floats and signed integers; linear.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

static constexpr DTypeSet kNegTypes = kFloatDTypes | DTypeSet{DType::i8, DType::i16, DType::i32, DType::i64};

OpDef make_Neg() {
  OpDef def = unary_op<kNegTypes>("Neg", [](auto x) { return wrapping_neg(x); });  // INT_MIN wraps to itself
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.eval_point = elementwise_point([](const uint64_t* v, int) { return field::neg(v[0]); });
  def.propagate_boxes = elementwise_boxes();
  return def;
}

}  // namespace pet::ops
