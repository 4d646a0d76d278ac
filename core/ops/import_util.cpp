// ONNX-import helpers for the shape and layout ops.
#include "core/ops/import_util.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/onnx_tensor.h"
#include "core/ops/op_util.h"

namespace pet::ops {

void reject_unknown_attrs(const OnnxImportNode& node, const std::vector<std::string>& known) {
  for (const std::string& name : node.attr_names())
    if (std::find(known.begin(), known.end(), name) == known.end()) node.unsupported("attribute '" + name + "'");
}

int import_axis(const OnnxImportNode& node, int64_t axis, int rank, const std::string& what) {
  int normalized = normalize_axis(axis, rank);
  if (normalized < 0)
    node.fail(fmt::format("{} {} is out of range for rank {}", what, axis, rank), "use an axis in [-rank, rank)");
  return normalized;
}

std::optional<std::vector<int64_t>> optional_constant_ints(const OnnxImportNode& node, int index,
                                                           const std::string& what) {
  if (!node.has_input(index)) return std::nullopt;
  return constant_ints(node, index, what);
}

std::vector<int64_t> import_axes(const OnnxImportNode& node, const std::vector<int64_t>& axes, int rank) {
  std::vector<int64_t> result;
  for (int64_t axis : axes) result.push_back(import_axis(node, axis, rank));
  std::sort(result.begin(), result.end());
  if (std::adjacent_find(result.begin(), result.end()) != result.end())
    node.fail("axes " + ints_to_string(axes) + " repeat an axis", "list each axis once");
  return result;
}

std::optional<DType> dtype_from_onnx_code(int64_t code) {
  if (code < 0 || code > INT32_MAX) return std::nullopt;
  return dtype_of_onnx(static_cast<int>(code));
}

std::string ints_to_string(const std::vector<int64_t>& values) { return fmt::format("[{}]", fmt::join(values, ", ")); }

}  // namespace pet::ops
