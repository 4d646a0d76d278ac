// Squeeze: removes the listed axes, each of size 1.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/linear_facets.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_squeeze(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  const auto& axes = context.attrs.get_ints("axes");
  int rank = input.shape.rank();
  std::vector<bool> dropped(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    PET_TRY_ASSIGN(int normalized, axis_or_refuse(context, axis, rank, "axis"));
    PET_REFUSE_UNLESS(context, input.shape[normalized] == 1,
                      fmt::format("cannot squeeze axis {} of {}: its size is {}, not 1", axis, input.shape.to_string(),
                                  input.shape[normalized]));
    PET_REFUSE_UNLESS(context, !dropped[static_cast<size_t>(normalized)],
                      "axes " + ints_to_string(axes) + " repeat an axis");
    dropped[static_cast<size_t>(normalized)] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d)
    if (!dropped[static_cast<size_t>(d)]) dims.push_back(input.shape[d]);
  return {{input.dtype, Shape(dims)}};
}

static void squeeze_kernel(KernelContext& context) {
  context.outputs[0] = context.input(0).reshaped(context.outputs[0].shape());
}

static OnnxImported import_squeeze(const OpDef&, const OnnxImportNode& node) {
  const Shape& shape = node.input_type(0).shape;
  std::optional<std::vector<int64_t>> axes;
  if (node.opset() < 13) {
    reject_unknown_attrs(node, {"axes"});
    if (node.has_attr("axes")) axes = node.attr_ints("axes");
  } else {
    reject_unknown_attrs(node, {});
    axes = optional_constant_ints(node, 1, "axes");
  }
  if (!axes || axes->empty()) {  // every axis of size 1
    axes.emplace();
    for (int d = 0; d < shape.rank(); ++d)
      if (shape[d] == 1) axes->push_back(d);
  }
  return {"Squeeze", {{"axes", import_axes(node, *axes, shape.rank())}}, {0}};
}

static void export_squeeze(const Node& node, OnnxExportNode& out) {
  const auto& axes = node.attrs.get_ints("axes");
  if (out.opset() < 13) {
    out.add_node("Squeeze", {out.input(0)}, {out.output(0)}, node.attrs);
    return;
  }
  std::string list = out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(axes.size())}, axes));
  out.add_node("Squeeze", {out.input(0), list}, {out.output(0)}, {});
}

OpDef make_Squeeze() {
  OpDef def;
  def.name = "Squeeze";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Squeeze"};
  def.attrs = {attr_ints("axes")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.traits.view = true;
  def.infer = infer_squeeze;
  def.compute = squeeze_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_squeeze;
  def.to_onnx = export_squeeze;
  def.eval_point = row_major_point();
  def.propagate_boxes = row_major_boxes();
  return def;
}

}  // namespace pet::ops
