// Shrink: x + bias below -lambd, x - bias above lambd, 0 in between, elementwise.
#include "core/ops/op_util.h"

namespace pet::ops {

static float shrink(float x, float lambd, float bias) {
  if (x < -lambd) return x + bias;
  if (x > lambd) return x - bias;
  return 0.0f;
}

OpDef make_Shrink() {
  OpDef def = unary_op(
      "Shrink",
      [](float x, const Attributes& attrs) {
        return shrink(x, static_cast<float>(attrs.get_float("lambd")), static_cast<float>(attrs.get_float("bias")));
      },
      {attr_float("bias", 0.0), attr_float("lambd", 0.5)}, 2.0);
  def.compute = [](KernelContext& context) {  // reads the attributes once, not per element
    auto lambd = static_cast<float>(context.attrs.get_float("lambd"));
    auto bias = static_cast<float>(context.attrs.get_float("bias"));
    map_unary_f32(context.input(0), context.outputs[0], [=](float x) { return shrink(x, lambd, bias); });
  };
  return def;
}

}  // namespace pet::ops
