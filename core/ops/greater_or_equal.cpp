// GreaterOrEqual: broadcasting elementwise a >= b on f32 or i64, giving bool.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_GreaterOrEqual() {
  return comparison_op(
      "GreaterOrEqual", [](double a, double b) { return a >= b; }, [](int64_t a, int64_t b) { return a >= b; }, false);
}

}  // namespace pet::ops
