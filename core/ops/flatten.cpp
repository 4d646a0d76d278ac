// Flatten: collapses the axes before `axis` into one dimension and the rest into another.
#include "core/ops/import_util.h"
#include "core/ops/linear_facets.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_flatten(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  int rank = input.shape.rank();
  int64_t axis = context.attrs.get_int("axis");
  // axis == rank is valid here: everything goes into the first dimension.
  int normalized = rank;
  if (axis != rank) {
    PET_TRY_ASSIGN(normalized, axis_or_refuse(context, axis, rank, "axis"));
  }
  int64_t outer = 1;
  for (int d = 0; d < normalized; ++d) outer *= input.shape[d];
  int64_t inner = 1;
  for (int d = normalized; d < rank; ++d) inner *= input.shape[d];
  return {{input.dtype, Shape{outer, inner}}};
}

static void flatten_kernel(KernelContext& context) {
  context.outputs[0] = context.input(0).reshaped(context.outputs[0].shape());
}

static OnnxImported import_flatten(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis"});
  int rank = node.input_type(0).shape.rank();
  int64_t axis = node.attr_int("axis", 1);
  if (axis != rank) axis = import_axis(node, axis, rank);
  return {"Flatten", {{"axis", axis}}, {0}};
}

OpDef make_Flatten() {
  OpDef def;
  def.name = "Flatten";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Flatten"};
  def.attrs = {attr_int("axis", 1)};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.traits.view = true;
  def.infer = infer_flatten;
  def.compute = flatten_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_flatten;
  def.to_onnx = export_same_name;
  def.eval_point = row_major_point();
  def.propagate_boxes = row_major_boxes();
  return def;
}

}  // namespace pet::ops
