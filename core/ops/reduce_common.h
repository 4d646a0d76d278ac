// The OpDef shared by the Reduce* ops (Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum,
// LogSumExp). Canonical attributes: `axes`
// (normalized, sorted; empty means no reduction, so ONNX's "all axes" default is spelled out
// at import) and `keepdims`; ONNX's axes input and noop_with_empty_axes are resolved at import.
#pragma once

#include <string>

#include "core/op_def.h"

namespace pet::ops {

enum class Reduction : uint8_t { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

OpDef reduce_op(const std::string& name, Reduction reduction);

}  // namespace pet::ops
