// ArgMin: index of the smallest element along an axis (see arg_reduce_common.h).
#include "core/ops/arg_reduce_common.h"

namespace pet::ops {

OpDef make_ArgMin() { return arg_reduce_op("ArgMin", false); }

}  // namespace pet::ops
