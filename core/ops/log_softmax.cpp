// LogSoftmax: x - log(sum(exp(x))) along an axis (see softmax_common.h for the canonical form).
#include "core/ops/softmax_common.h"

namespace pet::ops {

OpDef make_LogSoftmax() { return softmax_family_op("LogSoftmax", true); }

}  // namespace pet::ops
