// IsInf: whether each float32 element is an infinity of a detected sign (detect_negative,
// detect_positive), as a bool tensor.
#include <cmath>

#include "core/ops/elementwise_builders.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static bool is_detected_infinity(float x, bool negative, bool positive) {
  return std::isinf(x) && (x < 0 ? negative : positive);
}

OpDef make_IsInf() {
  OpDef def = float_predicate_op("IsInf", [](float x) { return std::isinf(x); });
  def.attrs = {attr_int("detect_negative", 1), attr_int("detect_positive", 1)};
  def.compute = [](KernelContext& context) {  // reads the attributes once, not per element
    bool negative = context.attrs.get_int("detect_negative") != 0;
    bool positive = context.attrs.get_int("detect_positive") != 0;
    auto in = context.input(0).f32();
    auto out = context.outputs[0].mutable_b8();
    for (size_t i = 0; i < in.size(); ++i) out[i] = is_detected_infinity(in[i], negative, positive) ? 1 : 0;
  };
  return def;
}

}  // namespace pet::ops
