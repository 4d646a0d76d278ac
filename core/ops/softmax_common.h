// The OpDef shared by Softmax and LogSoftmax. Canonical attributes: `axis`, and
// `include_trailing_axes` = 1 for the pre-opset-13 meaning (normalize jointly over `axis` and
// every later axis, as if the input were flattened to 2-D there); import picks the single-axis
// form whenever both mean the same.
#pragma once

#include <string>

#include "core/op_def.h"

namespace pet::ops {

OpDef softmax_family_op(const std::string& name, bool logarithmic);

}  // namespace pet::ops
