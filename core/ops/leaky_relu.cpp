// LeakyRelu: x for x >= 0, alpha * x below, elementwise.
#include "core/ops/op_util.h"

namespace pet::ops {

static float leaky(float x, float alpha) { return x >= 0.0f ? x : alpha * x; }

OpDef make_LeakyRelu() {
  OpDef def = unary_op(
      "LeakyRelu", [](float x, const Attributes& attrs) { return leaky(x, static_cast<float>(attrs.get_float("alpha"))); },
      {attr_float("alpha", 0.01)}, 2.0);
  def.compute = [](KernelContext& context) {  // reads alpha once, not per element
    auto alpha = static_cast<float>(context.attrs.get_float("alpha"));
    map_unary_f32(context.input(0), context.outputs[0], [alpha](float x) { return leaky(x, alpha); });
  };
  return def;
}

}  // namespace pet::ops
