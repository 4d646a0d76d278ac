// Equal: broadcasting elementwise a == b on f32, i64 or bool, giving bool.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Equal() {
  OpDef def = comparison_op(
      "Equal", [](double a, double b) { return a == b; }, [](int64_t a, int64_t b) { return a == b; }, true);
  def.traits.commutative = true;
  return def;
}

}  // namespace pet::ops
