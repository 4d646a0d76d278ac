// GatherElements: out has the shape of `indices`; each element is the data element at the same
// coordinate except along `axis`, where the index (negative counts from the end) is used.
// Linear in `data`.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_gather_elements(const ShapeContext& context) {
  const TensorType& data = context.input(0);
  const TensorType& indices = context.input(1);
  int rank = data.shape.rank();
  PET_REFUSE_UNLESS(context, rank >= 1, "cannot gather from a scalar");
  PET_TRY_ASSIGN(int axis, axis_or_refuse(context, context.attrs.get_int("axis"), rank, "axis"));
  PET_TRY(check_indices_along_axis(context, data, indices, axis));
  return {{data.dtype, indices.shape}};
}

static void compute_gather_elements(KernelContext& context) {
  const Tensor& data = context.input(0);
  const Tensor& indices = context.input(1);
  int axis = normalize_axis(context.attrs.get_int("axis"), data.shape().rank());
  std::vector<int64_t> offsets = offsets_along_axis(data.shape(), indices, axis, "GatherElements");
  gather_elements(data, offsets, context.outputs[0]);
}

static OnnxImported import_gather_elements(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis"});
  int rank = node.input_type(0).shape.rank();
  return {def.name, {{"axis", int64_t{import_axis(node, node.attr_int("axis", 0), rank)}}}, {0, 1}};
}

static void export_gather_elements(const Node& node, OnnxExportNode& out) {
  require_export_opset(node, out, 11, "GatherElements");
  export_same_name(node, out);
}

OpDef make_GatherElements() {
  OpDef def;
  def.name = "GatherElements";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"GatherElements"};
  def.attrs = {attr_int("axis", 0)};
  def.min_inputs = def.max_inputs = 2;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = infer_gather_elements;
  def.compute = compute_gather_elements;
  def.cost = data_movement_cost;
  def.from_onnx = import_gather_elements;
  def.to_onnx = export_gather_elements;
  return def;
}

}  // namespace pet::ops
