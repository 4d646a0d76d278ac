// ArgMax: index of the largest element along an axis (see arg_reduce_common.h).
#include "core/ops/arg_reduce_common.h"

namespace pet::ops {

OpDef make_ArgMax() { return arg_reduce_op("ArgMax", true); }

}  // namespace pet::ops
