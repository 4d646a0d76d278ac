// Softmax: exp(x) / sum(exp(x)) along an axis (see softmax_common.h for the canonical form).
#include "core/ops/softmax_common.h"

namespace pet::ops {

OpDef make_Softmax() { return softmax_family_op("Softmax", false); }

}  // namespace pet::ops
