// Sub: broadcasting elementwise difference; jointly linear in both inputs.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Sub() {
  OpTraits traits;
  traits.linearity = Linearity::Joint;
  traits.linear_inputs = {0, 1};
  OpDef def = binary_op<kNumericDTypes>("Sub", [](auto a, auto b) { return wrapping_sub(a, b); }, traits);
  def.eval_point = elementwise_point([](const uint64_t* v, int) { return field::sub(v[0], v[1]); });
  def.propagate_boxes = elementwise_boxes();
  return def;
}

}  // namespace pet::ops
