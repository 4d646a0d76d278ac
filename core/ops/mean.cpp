// Mean: elementwise mean of one or more broadcast float inputs; jointly linear in all of them.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Mean() {
  OpTraits traits;
  traits.linearity = Linearity::Joint;
  for (int i = 0; i < kMaxVariadicInputs; ++i) traits.linear_inputs.push_back(i);
  traits.commutative = true;
  OpDef def = variadic_op<kFloatDTypes>("Mean", [](auto a, auto b) { return a + b; }, traits);
  ReferenceKernel sum = def.compute;
  def.compute = [sum](KernelContext& context) {
    sum(context);
    Tensor& out = context.outputs[0];
    auto count = static_cast<double>(context.inputs.size());
    visit_allowed<kFloatDTypes>(out.dtype(), [&]<DType D>() {
      map_elements<D, D>(out, out, [count](auto total) { return total / static_cast<decltype(total)>(count); });
    });
  };
  return def;
}

}  // namespace pet::ops
