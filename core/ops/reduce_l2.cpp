// ReduceL2: square root of the sum of squares over the listed axes.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceL2() { return reduce_op("ReduceL2", Reduction::L2); }

}  // namespace pet::ops
