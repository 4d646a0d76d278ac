// ReduceMean: arithmetic mean over the listed axes.
#include "core/ops/reduce_common.h"

namespace pet::ops {

OpDef make_ReduceMean() { return reduce_op("ReduceMean", Reduction::Mean); }

}  // namespace pet::ops
