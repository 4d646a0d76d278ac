// ReduceProd: product over the listed axes.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceProd() { return reduce_op("ReduceProd", Reduction::Prod); }

}  // namespace pet::ops
