// ReduceL1: sum of absolute values over the listed axes.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceL1() { return reduce_op("ReduceL1", Reduction::L1); }

}  // namespace pet::ops
