// Less: broadcasting elementwise a < b on any numeric type, giving bool.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Less() {
  return comparison_op<kNumericDTypes>("Less", [](auto a, auto b) { return a < b; });
}

}  // namespace pet::ops
