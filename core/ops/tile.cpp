// Tile: repeats the whole input `repeats[i]` times along each axis i.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/strided_copy.h"

namespace pet::ops {

static ShapeResult infer_tile(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  const auto& repeats = context.attrs.get_ints("repeats");
  PET_REFUSE_UNLESS(context, static_cast<int>(repeats.size()) == input.shape.rank(),
                    fmt::format("repeats {} has {} entries for rank {}", ints_to_string(repeats), repeats.size(),
                                input.shape.rank()));
  Shape out = input.shape;
  for (int d = 0; d < out.rank(); ++d) {
    PET_REFUSE_UNLESS(context, repeats[static_cast<size_t>(d)] >= 0,
                      "repeats " + ints_to_string(repeats) + " has a negative entry");
    out[d] *= repeats[static_cast<size_t>(d)];
  }
  return {{input.dtype, out}};
}

// Axis d of the output reads as (repeat r, position i) with index r * size + i: a view of
// rank 2 x rank whose repeat dimensions have stride 0.
static void tile_kernel(KernelContext& context) {
  const Tensor& input = context.input(0);
  const auto& repeats = context.attrs.get_ints("repeats");
  std::vector<int64_t> own = input.shape().strides();
  StridedView view;
  for (int d = 0; d < input.shape().rank(); ++d) {
    view.dims.insert(view.dims.end(), {repeats[static_cast<size_t>(d)], input.shape()[d]});
    view.strides.insert(view.strides.end(), {0, own[static_cast<size_t>(d)]});
  }
  copy_strided(input, view, context.outputs[0]);
}

static OnnxImported import_tile(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {});
  return {"Tile", {{"repeats", constant_ints(node, 1, "repeats")}}, {0}};
}

static void export_tile(const Node& node, OnnxExportNode& out) {
  const auto& repeats = node.attrs.get_ints("repeats");
  std::string list = out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(repeats.size())}, repeats));
  out.add_node("Tile", {out.input(0), list}, {out.output(0)}, {});
}

OpDef make_Tile() {
  OpDef def;
  def.name = "Tile";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Tile"};
  def.attrs = {attr_ints("repeats")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_tile;
  def.compute = tile_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_tile;
  def.to_onnx = export_tile;
  return def;
}

}  // namespace pet::ops
