// HardSwish: x * clamp(x / 6 + 1/2, 0, 1), elementwise (MobileNetV3's activation).
#include <algorithm>

#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_HardSwish() {
  return unary_op(
      "HardSwish", [](float x, const Attributes&) { return x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f); }, {}, 5.0);
}

}  // namespace pet::ops
