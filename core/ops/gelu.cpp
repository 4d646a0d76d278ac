// Gelu: x * Phi(x), the Gaussian error linear unit, elementwise; approximate = "tanh" uses tanh's form.
#include <cmath>
#include <numbers>

#include "core/ops/op_util.h"

namespace pet::ops {

static float gelu_exact(float x) { return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(std::numbers::sqrt2 / 2))); }

static float gelu_tanh(float x) {
  const auto sqrt_2_over_pi = static_cast<float>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
  return 0.5f * x * (1.0f + std::tanh(sqrt_2_over_pi * (x + 0.044715f * x * x * x)));
}

static bool uses_tanh(const Attributes& attrs) { return attrs.get_string("approximate") == "tanh"; }

static ShapeResult infer_gelu(const ShapeContext& context) {
  const std::string& approximate = context.attrs.get_string("approximate");
  PET_REFUSE_UNLESS(context, approximate == "none" || approximate == "tanh",
                    "approximate must be \"none\" or \"tanh\", got \"" + approximate + "\"");
  PET_REFUSE_UNLESS(context, context.input(0).dtype == DType::f32,
                    "expects a float32 input, got " + context.input(0).to_string());
  return {context.input(0)};
}

// Opset 20 introduced Gelu; before it, the same formula from Erf (or Tanh) and arithmetic.
static void export_gelu(const Node& node, OnnxExportNode& out) {
  if (out.opset() >= 20) {
    export_same_name(node, out);
    return;
  }
  auto constant = [&](float value) { return out.add_constant(Tensor::scalar_f32(value)); };
  auto binary = [&](const char* op, const std::string& a, const std::string& b) {
    std::string result = out.fresh_name("gelu");
    out.add_node(op, {a, b}, {result}, {});
    return result;
  };
  const std::string x = out.input(0);
  std::string squashed;
  if (uses_tanh(node.attrs)) {
    std::string cube = binary("Mul", binary("Mul", x, x), x);
    std::string inner = binary("Add", x, binary("Mul", cube, constant(0.044715f)));
    std::string scaled = binary("Mul", inner, constant(static_cast<float>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi)));
    squashed = out.fresh_name("gelu_tanh");
    out.add_node("Tanh", {scaled}, {squashed}, {});
  } else {
    squashed = out.fresh_name("gelu_erf");
    out.add_node("Erf", {binary("Mul", x, constant(static_cast<float>(std::numbers::sqrt2 / 2)))}, {squashed}, {});
  }
  std::string half_x = binary("Mul", x, constant(0.5f));
  out.add_node("Mul", {half_x, binary("Add", squashed, constant(1.0f))}, {out.output(0)}, {});
}

OpDef make_Gelu() {
  OpDef def = unary_op(
      "Gelu", [](float x, const Attributes& attrs) { return uses_tanh(attrs) ? gelu_tanh(x) : gelu_exact(x); },
      {attr_string("approximate", "none")}, 10.0);
  def.infer = infer_gelu;
  def.compute = [](KernelContext& context) {  // reads approximate once, not per element
    if (uses_tanh(context.attrs))
      map_unary_f32(context.input(0), context.outputs[0], gelu_tanh);
    else
      map_unary_f32(context.input(0), context.outputs[0], gelu_exact);
  };
  def.to_onnx = export_gelu;
  return def;
}

}  // namespace pet::ops
