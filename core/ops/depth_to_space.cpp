// DepthToSpace: moves blocks of channels into blocksize x blocksize spatial blocks of an NCHW
// tensor, channel order DCR (depth-column-row, the default) or CRD; a fixed Layout, so it is
// layout-only and linear.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/layout.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static Attributes depth_to_space_layout(const Shape& shape, const Attributes& attrs) {
  return layout_depth_to_space(shape, attrs.get_int("blocksize"), attrs.get_string("mode") == "CRD");
}

static ShapeResult infer_depth_to_space(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  const std::string& mode = context.attrs.get_string("mode");
  int64_t blocksize = context.attrs.get_int("blocksize");
  PET_REFUSE_UNLESS(context, mode == "DCR" || mode == "CRD",
                    "mode '" + mode + "' is unknown; the modes are DCR and CRD");
  PET_REFUSE_UNLESS(context, x.shape.rank() == 4, "input " + x.to_string() + " must be 4-D (NCHW)");
  PET_REFUSE_UNLESS(context, blocksize >= 1, fmt::format("blocksize {} must be positive", blocksize));
  PET_REFUSE_UNLESS(
      context, x.shape[1] % (blocksize * blocksize) == 0,
      fmt::format("channels {} are not divisible by blocksize^2 = {}", x.shape[1], blocksize * blocksize));
  return {{x.dtype, layout_output_shape(depth_to_space_layout(x.shape, context.attrs))}};
}

static void compute_depth_to_space(KernelContext& context) {
  const Tensor& x = context.input(0);
  apply_layout(x, depth_to_space_layout(x.shape(), context.attrs), context.outputs[0]);
}

static OnnxImported import_depth_to_space(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"blocksize", "mode"});
  std::string mode = node.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") node.unsupported("mode '" + mode + "'");
  return {def.name, {{"blocksize", node.attr_int("blocksize")}, {"mode", mode}}, {0}};
}

static void export_depth_to_space(const Node& node, OnnxExportNode& out) {
  Attributes attrs{{"blocksize", node.attrs.get_int("blocksize")}};
  if (node.attrs.get_string("mode") == "CRD") require_export_opset(node, out, 11, "mode 'CRD'");
  if (out.opset() >= 11) attrs.set("mode", node.attrs.get_string("mode"));
  out.add_node("DepthToSpace", {out.input(0)}, {out.output(0)}, attrs);
}

OpDef make_DepthToSpace() {
  OpDef def;
  def.name = "DepthToSpace";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"DepthToSpace"};
  def.attrs = {attr_int("blocksize"), attr_string("mode", "DCR")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_depth_to_space;
  def.compute = compute_depth_to_space;
  def.cost = data_movement_cost;
  def.from_onnx = import_depth_to_space;
  def.to_onnx = export_depth_to_space;
  return def;
}

}  // namespace pet::ops
