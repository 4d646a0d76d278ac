// ReduceSum: sum over the listed axes; jointly linear in its input.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceSum() {
  OpDef def = reduce_op("ReduceSum", Reduction::Sum);
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  return def;
}

}  // namespace pet::ops
