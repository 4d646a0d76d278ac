// IsInf: whether each float element is an infinity of a detected sign (detect_negative,
// detect_positive), as a bool tensor.
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_IsInf() {
  OpDef def = predicate_op<kFloatDTypes>("IsInf", [](auto x) { return std::isinf(x); });
  def.attrs = {attr_int("detect_negative", 1), attr_int("detect_positive", 1)};
  def.compute = [](KernelContext& context) {  // reads the attributes once, not per element
    bool negative = context.attrs.get_int("detect_negative") != 0;
    bool positive = context.attrs.get_int("detect_positive") != 0;
    auto detected = [=](auto x) { return std::isinf(x) && (x < 0 ? negative : positive); };
    visit_allowed<kFloatDTypes>(context.input(0).dtype(), [&]<DType D>() {
      map_elements<D, DType::boolean>(context.input(0), context.outputs[0], detected);
    });
  };
  return def;
}

}  // namespace pet::ops
