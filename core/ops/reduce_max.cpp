// ReduceMax: maximum over the listed axes.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceMax() { return reduce_op("ReduceMax", Reduction::Max); }

}  // namespace pet::ops
