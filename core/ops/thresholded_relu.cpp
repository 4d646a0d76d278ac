// ThresholdedRelu: x where x > alpha, 0 elsewhere, elementwise.
#include "core/ops/op_util.h"

namespace pet::ops {

static float thresholded(float x, float alpha) { return x > alpha ? x : 0.0f; }

OpDef make_ThresholdedRelu() {
  OpDef def = unary_op(
      "ThresholdedRelu",
      [](float x, const Attributes& attrs) { return thresholded(x, static_cast<float>(attrs.get_float("alpha"))); },
      {attr_float("alpha", 1.0)});
  def.compute = [](KernelContext& context) {  // reads alpha once, not per element
    auto alpha = static_cast<float>(context.attrs.get_float("alpha"));
    map_unary_f32(context.input(0), context.outputs[0], [alpha](float x) { return thresholded(x, alpha); });
  };
  return def;
}

}  // namespace pet::ops
