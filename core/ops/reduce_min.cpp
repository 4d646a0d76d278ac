// ReduceMin: minimum over the listed axes.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceMin() { return reduce_op("ReduceMin", Reduction::Min); }

}  // namespace pet::ops
