// The OpDef shared by Softmax, LogSoftmax and Hardmax. Canonical attributes: `axis`, and
// `include_trailing_axes` = 1 for the pre-opset-13 meaning (normalize jointly over `axis` and
// every later axis, as if the input were flattened to 2-D there); import picks the single-axis
// form whenever both mean the same.
#pragma once

#include <cstdint>
#include <string>

#include "core/op_def.h"

namespace pet::ops {

OpDef softmax_family_op(const std::string& name, bool logarithmic);

// Writes the op's result for `count` elements spaced `stride` apart (into a zero-filled output).
using SoftmaxLineKernel = void (*)(const float* in, float* out, int64_t count, int64_t stride);

// An op of the same canonical form and import whose kernel is `line` (Hardmax). Where the export
// opset reads the axis differently, it is exported through Transpose (below 13) or Flatten.
OpDef softmax_family_op(const std::string& name, SoftmaxLineKernel line);

// Softmax of each of `rows` contiguous rows of `width` elements, in place (Softmax's own line
// kernel, for ops that normalize rows they computed: the fused Attention).
void softmax_rows(float* values, int64_t rows, int64_t width);

}  // namespace pet::ops
