// Gelu: x * Phi(x), the Gaussian error linear unit, elementwise; approximate = "tanh" uses tanh's form.
#include <cmath>
#include <numbers>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

template <typename T>
static T gelu_exact(T x) {
  return T{0.5} * x * (1 + std::erf(x * static_cast<T>(std::numbers::sqrt2 / 2)));
}

// The cubic coefficient of the tanh form; float32 reads it as the literal 0.044715f did.
static constexpr double kCubic = 0.044715;
static_assert(static_cast<float>(kCubic) == 0.044715f);

template <typename T>
static T gelu_tanh(T x) {
  const auto sqrt_2_over_pi = static_cast<T>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
  return T{0.5} * x * (1 + std::tanh(sqrt_2_over_pi * (x + static_cast<T>(kCubic) * x * x * x)));
}

static bool uses_tanh(const Attributes& attrs) { return attrs.get_string("approximate") == "tanh"; }

static ShapeCheck check_approximate(const ShapeContext& context) {
  const std::string& approximate = context.attrs.get_string("approximate");
  PET_REFUSE_UNLESS(context, approximate == "none" || approximate == "tanh",
                    "approximate must be \"none\" or \"tanh\", got \"" + approximate + "\"");
  return {};
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
  OpDef def = unary_op_with_attrs<kFloatDTypes>(
      "Gelu", {attr_string("approximate", "none")},
      [](const Attributes& attrs) {
        return [tanh_form = uses_tanh(attrs)](auto x) { return tanh_form ? gelu_tanh(x) : gelu_exact(x); };
      },
      10.0);
  ShapeRule unary_rule = def.infer;
  def.infer = [unary_rule](const ShapeContext& context) -> ShapeResult {
    PET_TRY(check_approximate(context));
    return unary_rule(context);
  };
  def.to_onnx = export_gelu;
  return def;
}

}  // namespace pet::ops
