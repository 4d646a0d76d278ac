// LessOrEqual: broadcasting elementwise a <= b on any numeric type, giving bool.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_LessOrEqual() {
  return comparison_op<kNumericDTypes>("LessOrEqual", [](auto a, auto b) { return a <= b; });
}

}  // namespace pet::ops
