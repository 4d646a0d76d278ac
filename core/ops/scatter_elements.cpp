// ScatterElements (and the deprecated Scatter): a copy of `data` where, for every element of
// `indices`, the data element at the same coordinate except along `axis`, where the index is
// used, is replaced by (or combined with, for reduction add/mul/max/min) the matching `updates` element.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_scatter_elements(const ShapeContext& context) {
  const TensorType& data = context.input(0);
  const TensorType& indices = context.input(1);
  const TensorType& updates = context.input(2);
  PET_TRY(check_scatter_reduction(context));
  int rank = data.shape.rank();
  PET_REFUSE_UNLESS(context, rank >= 1, "cannot scatter into a scalar");
  PET_TRY_ASSIGN(int axis, axis_or_refuse(context, context.attrs.get_int("axis"), rank, "axis"));
  PET_TRY(check_indices_along_axis(context, data, indices, axis));
  PET_REFUSE_UNLESS(
      context, updates.dtype == data.dtype,
      fmt::format("updates {} and data {} differ in element type", updates.to_string(), data.to_string()));
  PET_REFUSE_UNLESS(context, updates.shape == indices.shape,
                    fmt::format("updates shape {} must equal the indices shape {}", updates.shape.to_string(),
                                indices.shape.to_string()));
  return {data};
}

static void compute_scatter_elements(KernelContext& context) {
  const Tensor& data = context.input(0);
  const Tensor& indices = context.input(1);
  int axis = normalize_axis(context.attrs.get_int("axis"), data.shape().rank());
  std::vector<int64_t> offsets = offsets_along_axis(data.shape(), indices, axis, "ScatterElements");
  context.outputs[0] = data;
  scatter_blocks(context.outputs[0], context.input(2), offsets, 1, context.attrs.get_string("reduction"));
}

static OnnxImported import_scatter_elements(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis", "reduction"});
  int rank = node.input_type(0).shape.rank();
  Attributes attrs{{"axis", int64_t{import_axis(node, node.attr_int("axis", 0), rank)}},
                   {"reduction", import_scatter_reduction(node)}};
  return {def.name, attrs, {0, 1, 2}};
}

// Scatter before opset 11 (ScatterElements replaced it there).
static void export_scatter_elements(const Node& node, OnnxExportNode& out) {
  require_export_opset(node, out, 9, "Scatter");
  Attributes attrs{{"axis", node.attrs.get_int("axis")}};
  export_scatter_reduction(node, out, attrs);
  out.add_node(out.opset() >= 11 ? "ScatterElements" : "Scatter", {out.input(0), out.input(1), out.input(2)},
               {out.output(0)}, attrs);
}

OpDef make_ScatterElements() {
  OpDef def;
  def.name = "ScatterElements";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"ScatterElements", "Scatter"};
  def.attrs = {attr_int("axis", 0), attr_string("reduction", "none")};
  def.min_inputs = def.max_inputs = 3;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0, 2};
  def.traits.linear_when = scatter_is_linear;
  def.infer = infer_scatter_elements;
  def.compute = compute_scatter_elements;
  def.cost = data_movement_cost;
  def.from_onnx = import_scatter_elements;
  def.to_onnx = export_scatter_elements;
  return def;
}

}  // namespace pet::ops
