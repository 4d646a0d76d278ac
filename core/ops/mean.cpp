// Mean: elementwise mean of one or more broadcast f32 inputs; jointly linear in all of them.
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Mean() {
  OpTraits traits;
  traits.linearity = Linearity::Joint;
  for (int i = 0; i < kMaxVariadicInputs; ++i) traits.linear_inputs.push_back(i);
  traits.commutative = true;
  OpDef def = variadic_op("Mean", [](float a, float b) { return a + b; }, nullptr, traits);
  ReferenceKernel sum = def.compute;
  def.compute = [sum](KernelContext& context) {
    sum(context);
    auto count = static_cast<float>(context.inputs.size());
    for (float& value : context.outputs[0].mutable_f32()) value /= count;
  };
  return def;
}

}  // namespace pet::ops
