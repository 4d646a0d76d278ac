// Add: broadcasting elementwise sum; jointly linear in both inputs.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Add() {
  OpTraits traits;
  traits.linearity = Linearity::Joint;
  traits.linear_inputs = {0, 1};
  traits.commutative = true;
  OpDef def = binary_op<kNumericDTypes>("Add", [](auto a, auto b) { return wrapping_add(a, b); }, traits);
  def.eval_point = elementwise_point([](const uint64_t* v, int) { return field::add(v[0], v[1]); });
  def.propagate_boxes = elementwise_boxes();
  return def;
}

}  // namespace pet::ops
