// Hardmax: 1 at the first largest element along an axis, 0 elsewhere (see softmax_common.h for
// the canonical form of the axis).
#include "core/ops/softmax_common.h"

namespace pet::ops {

static void hardmax_line(const float* in, float* out, int64_t count, int64_t stride) {
  int64_t best = 0;
  for (int64_t k = 1; k < count; ++k)
    if (in[k * stride] > in[best * stride]) best = k;
  if (count > 0) out[best * stride] = 1.0f;
}

OpDef make_Hardmax() {
  OpDef def = softmax_family_op("Hardmax", hardmax_line);
  def.cost = [](const CostContext& context) {
    return Cost{static_cast<double>(context.input(0).shape.numel()), context.input_bytes() + context.output_bytes()};
  };
  return def;
}

}  // namespace pet::ops
