// Concat: joins tensors of equal rank along one axis; jointly linear in all inputs.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

// Concat joins more inputs than other variadic ops (feature pyramids, per-token pieces).
constexpr int kMaxConcatInputs = 1024;

static ShapeResult infer_concat(const ShapeContext& context) {
  const TensorType& first = context.input(0);
  int rank = first.shape.rank();
  PET_REFUSE_UNLESS(context, rank > 0, "cannot concatenate scalars; unsqueeze them first");
  PET_TRY_ASSIGN(int axis, axis_or_refuse(context, context.attrs.get_int("axis"), rank, "axis"));
  Shape out = first.shape;
  for (int i = 1; i < context.num_inputs(); ++i) {
    const TensorType& next = context.input(i);
    PET_REFUSE_UNLESS(context, next.dtype == first.dtype,
                      fmt::format("input {} is {}, input 0 is {}", i, next.to_string(), first.to_string()));
    PET_REFUSE_UNLESS(context, next.shape.rank() == rank,
                      fmt::format("input {} has rank {}, input 0 has rank {}", i, next.shape.rank(), rank));
    for (int d = 0; d < rank; ++d)
      PET_REFUSE_UNLESS(context, d == axis || next.shape[d] == first.shape[d],
                        fmt::format("input {} has shape {}, which differs from input 0's {} outside axis {}", i,
                                    next.shape.to_string(), first.shape.to_string(), axis));
    out[axis] += next.shape[axis];
  }
  return {{first.dtype, out}};
}

// Each input contributes one contiguous block of (its axis length x inner size) per outer index.
static void concat_kernel(KernelContext& context) {
  Tensor& out = context.outputs[0];
  int rank = out.shape().rank();
  int axis = normalize_axis(context.attrs.get_int("axis"), rank);
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= out.shape()[d];
  size_t width = dtype_size(out.dtype());
  size_t out_row = static_cast<size_t>(out.numel() / std::max<int64_t>(outer, 1)) * width;
  std::byte* destination = out.mutable_raw();
  size_t column = 0;
  for (const Tensor* input : context.inputs) {
    size_t block = static_cast<size_t>(input->numel() / std::max<int64_t>(outer, 1)) * width;
    const std::byte* source = input->raw();
    for (int64_t o = 0; o < outer && block > 0; ++o)
      std::memcpy(destination + static_cast<size_t>(o) * out_row + column, source + static_cast<size_t>(o) * block, block);
    column += block;
  }
}

static OnnxImported import_concat(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis"});
  OnnxImported result{"Concat", {}, {}};
  int rank = node.input_type(0).shape.rank();
  result.attrs.set("axis", int64_t{import_axis(node, node.attr_int("axis"), rank)});
  for (int i = 0; i < node.num_inputs(); ++i) result.inputs.push_back(node.has_input(i) ? i : -1);
  return result;
}

namespace {

uint64_t concat_point(const PointContext& context) {
  int axis = static_cast<int>(context.attrs.get_int("axis"));
  int64_t index[kMaxRank];
  std::copy(context.index, context.index + context.output.shape.rank(), index);
  for (int i = 0; i < static_cast<int>(context.inputs.size()); ++i) {
    int64_t length = context.input(i).shape[axis];
    if (index[axis] < length) return context.pull(i, index);
    index[axis] -= length;
  }
  PET_CHECK(false, "concat position beyond its inputs");
  return 0;
}

// Along the axis: every input's cuts at its offset (the seams are cuts); elsewhere the union.
BoxGrid concat_boxes(const BoxContext& context) {
  int axis = static_cast<int>(context.attrs.get_int("axis"));
  const Shape& out = context.output.shape;
  std::vector<std::vector<int64_t>> points(static_cast<size_t>(out.rank()));
  int64_t offset = 0;
  for (int i = 0; i < static_cast<int>(context.inputs.size()); ++i) {
    for (int d = 0; d < out.rank(); ++d)
      for (int64_t cut : context.grid(i).cuts(d)) points[static_cast<size_t>(d)].push_back(d == axis ? cut + offset : cut);
    offset += context.input(i).shape[axis];
  }
  std::vector<std::vector<int64_t>> cuts;
  for (int d = 0; d < out.rank(); ++d) cuts.push_back(normalize_cuts(points[static_cast<size_t>(d)], out[d]));
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_Concat() {
  OpDef def;
  def.name = "Concat";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Concat"};
  def.attrs = {attr_int("axis")};
  def.min_inputs = 1;
  def.max_inputs = kMaxConcatInputs;
  def.traits.linearity = Linearity::Joint;
  for (int i = 0; i < kMaxConcatInputs; ++i) def.traits.linear_inputs.push_back(i);
  def.traits.layout_only = true;
  def.infer = infer_concat;
  def.compute = concat_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_concat;
  def.to_onnx = export_same_name;
  def.eval_point = concat_point;
  def.propagate_boxes = concat_boxes;
  return def;
}

}  // namespace pet::ops
