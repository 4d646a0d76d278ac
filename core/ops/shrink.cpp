// Shrink: x + bias below -lambd, x - bias above lambd, 0 in between, elementwise (integers are
// computed in double and truncated back, as ONNX's reference casts its float result).
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

template <typename T>
static T shrink(T x, T lambd, T bias) {
  if (x < -lambd) return x + bias;
  if (x > lambd) return x - bias;
  return 0;
}

OpDef make_Shrink() {
  return unary_op_with_attrs<kNumericDTypes>(
      "Shrink", {attr_float("bias", 0.0), attr_float("lambd", 0.5)},
      [](const Attributes& attrs) {
        return [lambd = attrs.get_float("lambd"), bias = attrs.get_float("bias")](auto x) {
          using T = float_compute_t<decltype(x)>;
          return shrink(static_cast<T>(x), static_cast<T>(lambd), static_cast<T>(bias));
        };
      },
      2.0);
}

}  // namespace pet::ops
