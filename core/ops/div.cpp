// Div: broadcasting elementwise quotient (integers truncate toward zero); linear in the dividend.
#include <type_traits>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

// ONNX leaves integer division by zero undefined: we return 0 rather than trap, and the one
// overflowing quotient, INT_MIN / -1, wraps to INT_MIN.
template <typename T>
static T divide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return wrapping_neg(a);
  }
  return static_cast<T>(a / b);
}

OpDef make_Div() {
  OpTraits traits;
  traits.linearity = Linearity::Multilinear;
  traits.linear_inputs = {0};
  return binary_op<kNumericDTypes>("Div", [](auto a, auto b) { return divide(a, b); }, traits);
}

}  // namespace pet::ops
