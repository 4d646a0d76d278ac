// ReduceLogSumExp: log of the sum of exponentials over the listed axes (computed stably).
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceLogSumExp() { return reduce_op("ReduceLogSumExp", Reduction::LogSumExp); }

}  // namespace pet::ops
