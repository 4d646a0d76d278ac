// LessOrEqual: broadcasting elementwise a <= b on f32 or i64, giving bool.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_LessOrEqual() {
  return comparison_op(
      "LessOrEqual", [](double a, double b) { return a <= b; }, [](int64_t a, int64_t b) { return a <= b; }, false);
}

}  // namespace pet::ops
