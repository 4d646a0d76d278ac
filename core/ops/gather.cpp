// Gather: picks slices of `data` along one axis at the positions in an i32 or i64 `indices` tensor
// (negative positions count from the end); linear in `data`.
#include <cstring>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_gather(const ShapeContext& context) {
  const TensorType& data = context.input(0);
  const TensorType& indices = context.input(1);
  int rank = data.shape.rank();
  PET_REFUSE_UNLESS(context, rank > 0, "cannot gather from a scalar");
  PET_TRY_ASSIGN(int axis, axis_or_refuse(context, context.attrs.get_int("axis"), rank, "axis"));
  PET_TRY(check_index_dtype(context, indices, "indices"));
  std::vector<int64_t> dims(data.shape.dims().begin(), data.shape.dims().begin() + axis);
  dims.insert(dims.end(), indices.shape.dims().begin(), indices.shape.dims().end());
  dims.insert(dims.end(), data.shape.dims().begin() + axis + 1, data.shape.dims().end());
  return {{data.dtype, Shape(dims)}};
}

// For every outer index and every position, one contiguous block of the inner dimensions.
static void gather_kernel(KernelContext& context) {
  const Tensor& data = context.input(0);
  Tensor wide = indices_as_i64(context.input(1));
  auto indices = wide.i64();
  int axis = normalize_axis(context.attrs.get_int("axis"), data.shape().rank());
  int64_t outer = 1, inner = 1, length = data.shape()[axis];
  for (int d = 0; d < axis; ++d) outer *= data.shape()[d];
  for (int d = axis + 1; d < data.shape().rank(); ++d) inner *= data.shape()[d];
  size_t block = static_cast<size_t>(inner) * dtype_size(data.dtype());
  std::byte* to = context.outputs[0].mutable_raw();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t position : indices) {
      int64_t index = position < 0 ? position + length : position;
      if (index < 0 || index >= length)
        throw UserError(fmt::format("Gather: index {} is out of range for axis {} of size {}", position, axis, length));
      std::memcpy(to, data.raw() + static_cast<size_t>(o * length + index) * block, block);
      to += block;
    }
}

static OnnxImported import_gather(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis"});
  int rank = node.input_type(0).shape.rank();
  return {"Gather", {{"axis", int64_t{import_axis(node, node.attr_int("axis", 0), rank)}}}, {0, 1}};
}

OpDef make_Gather() {
  OpDef def;
  def.name = "Gather";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Gather"};
  def.attrs = {attr_int("axis", 0)};
  def.min_inputs = def.max_inputs = 2;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = infer_gather;
  def.compute = gather_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_gather;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
