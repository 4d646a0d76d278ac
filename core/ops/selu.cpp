// Selu: gamma * x for x > 0, gamma * alpha * (exp(x) - 1) otherwise, elementwise.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

static float selu(float x, float alpha, float gamma) { return gamma * (x > 0.0f ? x : alpha * std::expm1(x)); }

OpDef make_Selu() {
  OpDef def = unary_op(
      "Selu",
      [](float x, const Attributes& attrs) {
        return selu(x, static_cast<float>(attrs.get_float("alpha")), static_cast<float>(attrs.get_float("gamma")));
      },
      {attr_float("alpha", 1.67326319217681884765625), attr_float("gamma", 1.05070102214813232421875)}, 5.0);
  def.compute = [](KernelContext& context) {  // reads the attributes once, not per element
    auto alpha = static_cast<float>(context.attrs.get_float("alpha"));
    auto gamma = static_cast<float>(context.attrs.get_float("gamma"));
    map_unary_f32(context.input(0), context.outputs[0], [=](float x) { return selu(x, alpha, gamma); });
  };
  return def;
}

}  // namespace pet::ops
