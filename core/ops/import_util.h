// Small ONNX-import helpers shared by the shape and layout ops: attribute whitelists, axis
// normalization against an input's rank, and optional constant int inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/onnx_mapping.h"

namespace pet::ops {

// unsupported() for any ONNX attribute not in `known` (attributes are never silently ignored).
void reject_unknown_attrs(const OnnxImportNode& node, const std::vector<std::string>& known);

// `axis` in [0, rank), or a UserError naming WHAT when it is out of range.
int import_axis(const OnnxImportNode& node, int64_t axis, int rank, const std::string& what = "axis");

// The ints of constant input INDEX when the input is present, nullopt when absent;
// a UserError when it is present but not constant.
std::optional<std::vector<int64_t>> optional_constant_ints(const OnnxImportNode& node, int index,
                                                           const std::string& what);

// Sorted, normalized, duplicate-free axes against `rank`, or a UserError.
std::vector<int64_t> import_axes(const OnnxImportNode& node, const std::vector<int64_t>& axes, int rank);

// The pet element type of an ONNX TensorProto.DataType code read from an int attribute (nullopt
// for types pet does not hold, or a number out of int's range); onnx_elem_type goes the other way.
std::optional<DType> dtype_from_onnx_code(int64_t code);

// "[a, b, c]" for error messages.
std::string ints_to_string(const std::vector<int64_t>& values);

}  // namespace pet::ops
