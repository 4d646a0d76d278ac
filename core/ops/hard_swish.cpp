// HardSwish: x * clamp(x / 6 + 1/2, 0, 1), elementwise (MobileNetV3's activation).
#include <algorithm>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

// Opset 14 introduced HardSwish; before it, x * HardSigmoid(x, alpha = 1/6, beta = 1/2).
static void export_hard_swish(const Node& node, OnnxExportNode& out) {
  if (out.opset() >= 14) {
    export_same_name(node, out);
    return;
  }
  std::string gate = out.fresh_name("hard_swish_gate");
  out.add_node("HardSigmoid", {out.input(0)}, {gate}, {{"alpha", 1.0 / 6.0}, {"beta", 0.5}});
  out.add_node("Mul", {out.input(0), gate}, {out.output(0)}, {});
}

OpDef make_HardSwish() {
  OpDef def = unary_op<kFloatDTypes>(
      "HardSwish",
      [](auto x) {
        using T = decltype(x);
        return x * std::clamp(x / T{6} + T{0.5}, T{0}, T{1});
      },
      5.0);
  def.to_onnx = export_hard_swish;
  return def;
}

}  // namespace pet::ops
