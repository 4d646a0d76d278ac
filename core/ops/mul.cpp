// Mul: broadcasting elementwise product; linear in each input separately.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Mul() {
  OpTraits traits;
  traits.linearity = Linearity::Multilinear;
  traits.linear_inputs = {0, 1};
  traits.commutative = true;
  OpDef def = binary_op<kNumericDTypes>("Mul", [](auto a, auto b) { return wrapping_mul(a, b); }, traits);
  def.eval_point = elementwise_point([](const uint64_t* v, int) { return field::mul(v[0], v[1]); });
  def.propagate_boxes = elementwise_boxes();
  return def;
}

}  // namespace pet::ops
