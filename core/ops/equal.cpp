// Equal: broadcasting elementwise a == b on any numeric type or bool, giving bool.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Equal() {
  OpTraits traits;
  traits.commutative = true;
  return comparison_op<kAllDTypeSet>("Equal", [](auto a, auto b) { return a == b; }, traits);
}

}  // namespace pet::ops
