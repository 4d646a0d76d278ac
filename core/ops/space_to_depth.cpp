// SpaceToDepth: moves blocksize x blocksize spatial blocks of an NCHW tensor into channels
// (out channel (row * blocksize + column) * C + c); a fixed Layout, so layout-only and linear.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/layout.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_space_to_depth(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  int64_t blocksize = context.attrs.get_int("blocksize");
  PET_REFUSE_UNLESS(context, x.shape.rank() == 4, "input " + x.to_string() + " must be 4-D (NCHW)");
  PET_REFUSE_UNLESS(context, blocksize >= 1, fmt::format("blocksize {} must be positive", blocksize));
  PET_REFUSE_UNLESS(
      context, x.shape[2] % blocksize == 0 && x.shape[3] % blocksize == 0,
      fmt::format("height and width of {} are not divisible by blocksize {}", x.shape.to_string(), blocksize));
  return {{x.dtype, layout_output_shape(layout_space_to_depth(x.shape, blocksize))}};
}

static void compute_space_to_depth(KernelContext& context) {
  const Tensor& x = context.input(0);
  apply_layout(x, layout_space_to_depth(x.shape(), context.attrs.get_int("blocksize")), context.outputs[0]);
}

static OnnxImported import_space_to_depth(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"blocksize"});
  return {def.name, {{"blocksize", node.attr_int("blocksize")}}, {0}};
}

OpDef make_SpaceToDepth() {
  OpDef def;
  def.name = "SpaceToDepth";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"SpaceToDepth"};
  def.attrs = {attr_int("blocksize")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_space_to_depth;
  def.compute = compute_space_to_depth;
  def.cost = data_movement_cost;
  def.from_onnx = import_space_to_depth;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
