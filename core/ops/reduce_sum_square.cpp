// ReduceSumSquare: sum of squares over the listed axes.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceSumSquare() { return reduce_op("ReduceSumSquare", Reduction::SumSquare); }

}  // namespace pet::ops
