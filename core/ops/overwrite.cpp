// Overwrite: `base` with `patch` written over the box that starts at `offsets`; the correction
// node of partially equivalent mutants, exported to ONNX with standard ops (Slices of the base
// around the patch joined by Concats, or one of the other lowerings of patch_lowering.h), so any
// runtime runs it.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/linear_facets.h"
#include "core/ops/op_util.h"
#include "core/ops/overwrite.h"
#include "core/ops/patch_lowering.h"

namespace pet::ops {

// Row by row: the patch's innermost axis is contiguous in both tensors.
void write_patch(const Tensor& patch, const std::vector<int64_t>& offsets, Tensor& out) {
  if (patch.numel() == 0) return;
  int rank = patch.shape().rank();
  size_t width = dtype_size(patch.dtype());
  if (rank == 0) {
    std::memcpy(out.mutable_raw(), patch.raw(), width);
    return;
  }
  std::vector<int64_t> strides = out.shape().strides();
  int64_t row = patch.shape()[rank - 1];
  int64_t rows = patch.numel() / row;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  std::byte* destination = out.mutable_raw();
  for (int64_t r = 0; r < rows; ++r) {
    unravel_index(r * row, patch.shape(), index.data());
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += (index[static_cast<size_t>(d)] + offsets[static_cast<size_t>(d)]) * strides[static_cast<size_t>(d)];
    std::memcpy(destination + static_cast<size_t>(offset) * width, patch.raw() + static_cast<size_t>(r * row) * width,
                static_cast<size_t>(row) * width);
  }
}

namespace {

ShapeResult infer_overwrite(const ShapeContext& context) {
  const TensorType& base = context.input(0);
  const TensorType& patch = context.input(1);
  const auto& offsets = context.attrs.get_ints("offsets");
  int rank = base.shape.rank();
  PET_REFUSE_UNLESS(
      context, patch.dtype == base.dtype,
      fmt::format("patch {} and base {} have different element types", patch.to_string(), base.to_string()));
  PET_REFUSE_UNLESS(context, patch.shape.rank() == rank,
                    fmt::format("patch {} must have the rank of base {}", patch.to_string(), base.to_string()));
  PET_REFUSE_UNLESS(
      context, static_cast<int>(offsets.size()) == rank,
      fmt::format("offsets {} need one entry per axis of base {}", ints_to_string(offsets), base.to_string()));
  for (int d = 0; d < rank; ++d) {
    int64_t offset = offsets[static_cast<size_t>(d)];
    PET_REFUSE_UNLESS(context, offset >= 0 && offset + patch.shape[d] <= base.shape[d],
                      fmt::format("patch {} at offsets {} does not fit base {} on axis {}", patch.to_string(),
                                  ints_to_string(offsets), base.to_string(), d));
  }
  PET_TRY(check_patch_lowering(context, base.shape, {{offsets, patch.shape}}));
  return {base};
}

// Copies the base, then the patch.
void overwrite_kernel(KernelContext& context) {
  const Tensor& base = context.input(0);
  Tensor& out = context.outputs[0];
  if (base.nbytes() > 0) std::memcpy(out.mutable_raw(), base.raw(), base.nbytes());
  write_patch(context.input(1), context.attrs.get_ints("offsets"), out);
}

// In place, as runtimes run it: the patch is read once and written once; the rest of the base
// stays where it is (the reference kernel copies it only because its output is a fresh tensor).
Cost overwrite_cost(const CostContext& context) {
  double patch_bytes = static_cast<double>(context.input(1).shape.numel()) *
                       static_cast<double>(dtype_size(context.input(1).dtype));
  return {0, 2 * patch_bytes};
}

uint64_t overwrite_point(const PointContext& context) {
  const auto& offsets = context.attrs.get_ints("offsets");
  const Shape& patch = context.input(1).shape;
  int rank = context.output.shape.rank();
  int64_t index[kMaxRank];
  bool inside = true;
  for (int d = 0; d < rank; ++d) {
    index[d] = context.index[d] - offsets[static_cast<size_t>(d)];
    inside = inside && index[d] >= 0 && index[d] < patch[d];
  }
  return inside ? context.pull(1, index) : context.pull(0, context.index);
}

// Base's cuts, the patch's edges, and the patch's own cuts shifted to where it lands.
BoxGrid overwrite_boxes(const BoxContext& context) {
  const auto& offsets = context.attrs.get_ints("offsets");
  const Shape& out = context.output.shape;
  std::vector<std::vector<int64_t>> cuts;
  for (int d = 0; d < out.rank(); ++d) {
    int64_t offset = offsets[static_cast<size_t>(d)];
    std::vector<int64_t> points = context.grid(0).cuts(d);
    for (int64_t cut : context.grid(1).cuts(d)) points.push_back(cut + offset);
    cuts.push_back(normalize_cuts(std::move(points), out[d]));
  }
  return BoxGrid(std::move(cuts));
}

// The patch over the base, by the node's lowering (slices unless a measured target chose another).
void export_overwrite(const Node& node, OnnxExportNode& out) {
  std::optional<TensorType> base_type = out.input_type(0), patch_type = out.input_type(1);
  PET_CHECK(base_type && patch_type, "Overwrite export needs its input types");
  ExportedPatch patch{out.input(1), {node.attrs.get_ints("offsets"), patch_type->shape}, node.name};
  export_patches(out, node.name, out.input(0), *base_type, {patch}, lowering_of(node.attrs), out.output(0));
}

}  // namespace

OpDef make_Overwrite() {
  OpDef def;
  def.name = "Overwrite";  // not an ONNX op: exported as Slice + Concat, never imported
  def.attrs = {attr_ints("offsets"), {kLoweringAttr, AttrKind::String, AttrValue(std::string("slices")), true}};
  def.min_inputs = def.max_inputs = 2;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0, 1};
  def.traits.layout_only = true;
  def.infer = infer_overwrite;
  def.compute = overwrite_kernel;
  def.cost = overwrite_cost;
  def.to_onnx = export_overwrite;
  def.eval_point = overwrite_point;
  def.propagate_boxes = overwrite_boxes;
  return def;
}

}  // namespace pet::ops
