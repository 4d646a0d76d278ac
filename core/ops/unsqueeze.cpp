// Unsqueeze: inserts axes of size 1 at the listed positions of the output.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/linear_facets.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_unsqueeze(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  const auto& axes = context.attrs.get_ints("axes");
  int out_rank = input.shape.rank() + static_cast<int>(axes.size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t axis : axes) {
    PET_TRY_ASSIGN(int normalized, axis_or_refuse(context, axis, out_rank, "axis"));
    PET_REFUSE_UNLESS(context, !inserted[static_cast<size_t>(normalized)],
                      "axes " + ints_to_string(axes) + " repeat an axis");
    inserted[static_cast<size_t>(normalized)] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0, next = 0; d < out_rank; ++d) dims.push_back(inserted[static_cast<size_t>(d)] ? 1 : input.shape[next++]);
  return {{input.dtype, Shape(dims)}};
}

static void unsqueeze_kernel(KernelContext& context) {
  context.outputs[0] = context.input(0).reshaped(context.outputs[0].shape());
}

static OnnxImported import_unsqueeze(const OpDef&, const OnnxImportNode& node) {
  std::vector<int64_t> axes;
  if (node.opset() < 13) {
    reject_unknown_attrs(node, {"axes"});
    axes = node.attr_ints("axes");
  } else {
    reject_unknown_attrs(node, {});
    axes = constant_ints(node, 1, "axes");
  }
  int out_rank = node.input_type(0).shape.rank() + static_cast<int>(axes.size());
  return {"Unsqueeze", {{"axes", import_axes(node, axes, out_rank)}}, {0}};
}

static void export_unsqueeze(const Node& node, OnnxExportNode& out) {
  const auto& axes = node.attrs.get_ints("axes");
  if (out.opset() < 13) {
    out.add_node("Unsqueeze", {out.input(0)}, {out.output(0)}, node.attrs);
    return;
  }
  std::string list = out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(axes.size())}, axes));
  out.add_node("Unsqueeze", {out.input(0), list}, {out.output(0)}, {});
}

OpDef make_Unsqueeze() {
  OpDef def;
  def.name = "Unsqueeze";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Unsqueeze"};
  def.attrs = {attr_ints("axes")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.traits.view = true;
  def.infer = infer_unsqueeze;
  def.compute = unsqueeze_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_unsqueeze;
  def.to_onnx = export_unsqueeze;
  def.eval_point = row_major_point();
  def.propagate_boxes = row_major_boxes();
  return def;
}

}  // namespace pet::ops
