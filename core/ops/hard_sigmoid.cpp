// HardSigmoid: clamp(alpha * x + beta, 0, 1), elementwise.
#include <algorithm>

#include "core/ops/op_util.h"

namespace pet::ops {

static float hard_sigmoid(float x, float alpha, float beta) { return std::clamp(alpha * x + beta, 0.0f, 1.0f); }

OpDef make_HardSigmoid() {
  OpDef def = unary_op(
      "HardSigmoid",
      [](float x, const Attributes& attrs) {
        return hard_sigmoid(x, static_cast<float>(attrs.get_float("alpha")), static_cast<float>(attrs.get_float("beta")));
      },
      {attr_float("alpha", 0.2), attr_float("beta", 0.5)}, 4.0);
  def.compute = [](KernelContext& context) {  // reads the attributes once, not per element
    auto alpha = static_cast<float>(context.attrs.get_float("alpha"));
    auto beta = static_cast<float>(context.attrs.get_float("beta"));
    map_unary_f32(context.input(0), context.outputs[0], [=](float x) { return hard_sigmoid(x, alpha, beta); });
  };
  return def;
}

}  // namespace pet::ops
