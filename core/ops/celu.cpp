// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), elementwise.
#include <algorithm>
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

static float celu(float x, float alpha) { return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x / alpha)); }

static ShapeResult infer_celu(const ShapeContext& context) {
  PET_REFUSE_UNLESS(context, context.attrs.get_float("alpha") != 0.0, "alpha must not be 0");
  PET_REFUSE_UNLESS(context, context.input(0).dtype == DType::f32,
                    "expects a float32 input, got " + context.input(0).to_string());
  return {context.input(0)};
}

OpDef make_Celu() {
  OpDef def = unary_op(
      "Celu", [](float x, const Attributes& attrs) { return celu(x, static_cast<float>(attrs.get_float("alpha"))); },
      {attr_float("alpha", 1.0)}, 5.0);
  def.infer = infer_celu;
  def.compute = [](KernelContext& context) {  // reads alpha once, not per element
    auto alpha = static_cast<float>(context.attrs.get_float("alpha"));
    map_unary_f32(context.input(0), context.outputs[0], [alpha](float x) { return celu(x, alpha); });
  };
  return def;
}

}  // namespace pet::ops
