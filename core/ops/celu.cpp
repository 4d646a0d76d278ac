// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), elementwise (float32 only, as in ONNX).
#include <algorithm>
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

static constexpr DTypeSet kCeluTypes = {DType::f32};

static float celu(float x, float alpha) { return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x / alpha)); }

OpDef make_Celu() {
  OpDef def = unary_op_with_attrs<kCeluTypes>(
      "Celu", {attr_float("alpha", 1.0)},
      [](const Attributes& attrs) {
        return [alpha = static_cast<float>(attrs.get_float("alpha"))](float x) { return celu(x, alpha); };
      },
      5.0);
  ShapeRule unary_rule = def.infer;
  def.infer = [unary_rule](const ShapeContext& context) -> ShapeResult {
    PET_REFUSE_UNLESS(context, context.attrs.get_float("alpha") != 0.0, "alpha must not be 0");
    return unary_rule(context);
  };
  return def;
}

}  // namespace pet::ops
