// ONNX-import helpers for the shape and layout ops.
#include "core/ops/import_util.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

// ONNX TensorProto.DataType codes of the types pet holds.
static constexpr int64_t kOnnxFloat = 1;
static constexpr int64_t kOnnxInt64 = 7;
static constexpr int64_t kOnnxBool = 9;

int64_t onnx_type_code(DType type) {
  switch (type) {
    case DType::f32: return kOnnxFloat;
    case DType::i64: return kOnnxInt64;
    case DType::boolean: return kOnnxBool;
  }
  return 0;
}

std::optional<DType> dtype_from_onnx_code(int64_t code) {
  if (code == kOnnxFloat) return DType::f32;
  if (code == kOnnxInt64) return DType::i64;
  if (code == kOnnxBool) return DType::boolean;
  return std::nullopt;
}

std::string ints_to_string(const std::vector<int64_t>& values) { return fmt::format("[{}]", fmt::join(values, ", ")); }

}  // namespace pet::ops
