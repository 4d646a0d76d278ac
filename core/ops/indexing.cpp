// Index checks, odometer offsets and scatter reductions shared by the indexing ops.
#include "core/ops/indexing.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/error.h"
#include "core/graph.h"

namespace pet::ops {

int64_t checked_index(int64_t index, int64_t length, const std::string& op) {
  int64_t position = index < 0 ? index + length : index;
  if (position < 0 || position >= length)
    throw UserError(fmt::format("{}: index {} is out of range for an axis of size {}", op, index, length));
  return position;
}

std::vector<int64_t> embedded_offsets(const std::vector<int64_t>& walk, const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides = Shape(dims).strides();
  int64_t total = Shape(walk).numel();
  std::vector<int64_t> offsets(static_cast<size_t>(total));
  std::vector<int64_t> coordinate(walk.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < total; ++i) {
    offsets[static_cast<size_t>(i)] = offset;
    for (size_t d = walk.size(); d-- > 0;) {  // odometer
      offset += strides[d];
      if (++coordinate[d] < walk[d]) break;
      offset -= strides[d] * walk[d];
      coordinate[d] = 0;
    }
  }
  return offsets;
}

std::vector<int64_t> offsets_along_axis(const Shape& data, const Tensor& indices, int axis, const std::string& op) {
  auto a = static_cast<size_t>(axis);
  int64_t stride = data.strides()[a], length = data[axis];
  int64_t index_stride = indices.shape().strides()[a], index_length = indices.shape()[axis];
  std::vector<int64_t> offsets = embedded_offsets(indices.shape().dims(), data.dims());
  Tensor wide = indices_as_i64(indices);
  auto values = wide.i64();
  for (size_t i = 0; i < offsets.size(); ++i) {
    int64_t own = (static_cast<int64_t>(i) / index_stride) % index_length;  // the element's axis coordinate
    offsets[i] += (checked_index(values[i], length, op) - own) * stride;
  }
  return offsets;
}

ShapeCheck check_indices_along_axis(const ShapeContext& context, const TensorType& data, const TensorType& indices,
                                    int axis) {
  int rank = data.shape.rank();
  PET_TRY(check_index_dtype(context, indices, "indices"));
  PET_REFUSE_UNLESS(
      context, indices.shape.rank() == rank,
      fmt::format("indices {} must have the rank of data {}", indices.shape.to_string(), data.shape.to_string()));
  for (int d = 0; d < rank; ++d)
    PET_REFUSE_UNLESS(context, d == axis || indices.shape[d] <= data.shape[d],
                      fmt::format("indices {} do not fit inside data {} off axis {}", indices.shape.to_string(),
                                  data.shape.to_string(), axis));
  return {};
}

ShapeCheck check_index_dtype(const ShapeContext& context, const TensorType& indices, const std::string& what) {
  PET_REFUSE_UNLESS(context, is_index_dtype(indices.dtype),
                    fmt::format("{} must be i32 or i64, got {}; cast them to i64", what, indices.to_string()));
  return {};
}

Tensor indices_as_i64(const Tensor& indices) {
  return indices.dtype() == DType::i64 ? indices : indices.converted(DType::i64);
}

int64_t dims_product(const std::vector<int64_t>& dims, size_t first, size_t last) {
  int64_t product = 1;
  for (size_t d = first; d < last && d < dims.size(); ++d) product *= dims[d];
  return product;
}

bool is_scatter_reduction(const std::string& reduction) {
  return reduction == "none" || reduction == "add" || reduction == "mul" || reduction == "max" || reduction == "min";
}

ShapeCheck check_scatter_reduction(const ShapeContext& context) {
  const std::string& reduction = context.attrs.get_string("reduction");
  PET_REFUSE_UNLESS(context, is_scatter_reduction(reduction),
                    "reduction '" + reduction + "' is unknown; the reductions are none, add, mul, max and min");
  DType type = context.input(0).dtype;
  PET_REFUSE_UNLESS(context, reduction == "none" || type != DType::boolean,
                    fmt::format("reduction '{}' does not support element type {}", reduction, dtype_name(type)));
  return {};
}

std::string import_scatter_reduction(const OnnxImportNode& node) {
  std::string reduction = node.attr_string("reduction", "none");
  if (!is_scatter_reduction(reduction)) node.unsupported("reduction '" + reduction + "'");
  if ((reduction == "max" || reduction == "min") && node.opset() < 18)
    node.fail("reduction '" + reduction + "' exists from opset 18 on", "use add, mul or none, or a newer opset");
  return reduction;
}

bool scatter_is_linear(const Attributes& attrs) {
  const std::string& reduction = attrs.get_string("reduction");
  return reduction == "none" || reduction == "add";
}

template <typename T>
static T combine(const std::string& reduction, T current, T update) {
  if (reduction == "add") return current + update;
  if (reduction == "mul") return current * update;
  return reduction == "max" ? std::max(current, update) : std::min(current, update);
}

template <DType D>
static void reduce_blocks(storage_t<D>* out, const storage_t<D>* updates, const std::vector<int64_t>& offsets,
                          int64_t block, const std::string& reduction) {
  for (size_t i = 0; i < offsets.size(); ++i) {
    storage_t<D>* to = out + offsets[i];
    const storage_t<D>* from = updates + static_cast<int64_t>(i) * block;
    for (int64_t j = 0; j < block; ++j) to[j] = narrow<D>(combine(reduction, widen<D>(to[j]), widen<D>(from[j])));
  }
}

void scatter_blocks(Tensor& out, const Tensor& updates, const std::vector<int64_t>& offsets, int64_t block,
                    const std::string& reduction) {
  PET_CHECK(out.dtype() == updates.dtype(), "scatter dtype mismatch");
  if (reduction == "none") {
    size_t width = dtype_size(out.dtype()), bytes = static_cast<size_t>(block) * width;
    std::byte* to = out.mutable_raw();
    for (size_t i = 0; i < offsets.size(); ++i)
      std::memcpy(to + static_cast<size_t>(offsets[i]) * width, updates.raw() + i * bytes, bytes);
    return;
  }
  PET_CHECK(out.dtype() != DType::boolean, "scatter reduction on bool");
  visit_dtype(out.dtype(), [&]<DType D>() {
    if constexpr (D != DType::boolean)
      reduce_blocks<D>(out.mutable_view<D>().data(), updates.view<D>().data(), offsets, block, reduction);
  });
}

void require_export_opset(const Node& node, const OnnxExportNode& out, int minimum, const std::string& what) {
  if (out.opset() < minimum)
    throw UserError(fmt::format("node '{}' ({}): {} needs opset {} or later, exporting at opset {}; export at a "
                                "newer opset",
                                node.name, node.op(), what, minimum, out.opset()));
}

void export_scatter_reduction(const Node& node, const OnnxExportNode& out, Attributes& onnx_attrs) {
  const std::string& reduction = node.attrs.get_string("reduction");
  if (reduction != "none") require_export_opset(node, out, 16, "reduction '" + reduction + "'");
  if (reduction == "max" || reduction == "min") require_export_opset(node, out, 18, "reduction '" + reduction + "'");
  if (out.opset() >= 16) onnx_attrs.set("reduction", reduction);
}

}  // namespace pet::ops
