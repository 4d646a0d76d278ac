// Sum: elementwise sum of one or more broadcast inputs; jointly linear in all of them.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

// ONNX's Sum takes float types; pet also sums i64 (shape arithmetic).
static constexpr DTypeSet kSumTypes = kFloatDTypes | DTypeSet{DType::i64};

OpDef make_Sum() {
  OpTraits traits;
  traits.linearity = Linearity::Joint;
  for (int i = 0; i < kMaxVariadicInputs; ++i) traits.linear_inputs.push_back(i);
  traits.commutative = true;
  OpDef def = variadic_op<kSumTypes>("Sum", [](auto a, auto b) { return wrapping_add(a, b); }, traits);
  def.eval_point = elementwise_point([](const uint64_t* v, int n) {
    uint64_t total = 0;
    for (int i = 0; i < n; ++i) total = field::add(total, v[i]);
    return total;
  });
  def.propagate_boxes = elementwise_boxes();
  return def;
}

}  // namespace pet::ops
