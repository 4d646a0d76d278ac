// Div: broadcasting elementwise quotient (integers truncate toward zero); linear in the dividend.
#include "core/ops/op_util.h"

namespace pet::ops {

// Integer division by zero is undefined in ONNX; we return 0 rather than trap.
static int64_t divide_truncating(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return static_cast<int64_t>(0ULL - static_cast<uint64_t>(a));  // INT64_MIN / -1 wraps
  return a / b;
}

OpDef make_Div() {
  OpTraits traits;
  traits.linearity = Linearity::Multilinear;
  traits.linear_inputs = {0};
  return binary_op("Div", [](float a, float b) { return a / b; }, divide_truncating, traits);
}

}  // namespace pet::ops
