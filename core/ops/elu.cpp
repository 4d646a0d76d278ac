// Elu: x for x >= 0, alpha * (exp(x) - 1) below, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

static float elu(float x, float alpha) { return x >= 0.0f ? x : alpha * std::expm1(x); }

OpDef make_Elu() {
  OpDef def = unary_op(
      "Elu", [](float x, const Attributes& attrs) { return elu(x, static_cast<float>(attrs.get_float("alpha"))); },
      {attr_float("alpha", 1.0)}, 4.0);
  def.compute = [](KernelContext& context) {  // reads alpha once, not per element
    auto alpha = static_cast<float>(context.attrs.get_float("alpha"));
    map_unary_f32(context.input(0), context.outputs[0], [alpha](float x) { return elu(x, alpha); });
  };
  return def;
}

}  // namespace pet::ops
