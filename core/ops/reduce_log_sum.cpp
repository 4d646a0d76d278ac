// ReduceLogSum: natural log of the sum over the listed axes.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceLogSum() { return reduce_op("ReduceLogSum", Reduction::LogSum); }

}  // namespace pet::ops
