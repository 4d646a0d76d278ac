// MaxPool: N-D max over sliding windows with pads, strides, dilations and ceil_mode.
#include <fmt/format.h>

#include <limits>

#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/pooling.h"

namespace pet::ops {
namespace {

void compute_max_pool(KernelContext& context) {
  const Tensor& x = context.input(0);
  WindowGeometry geometry = pool_geometry(x.shape(), context.attrs);
  PoolWindows windows(geometry, context.attrs.get_ints("pads"));
  int64_t planes = x.shape()[0] * x.shape()[1];
  int64_t in_size = geometry.input_size(), out_size = geometry.output_size();
  const float* in = x.f32().data();
  float* out = context.outputs[0].mutable_f32().data();
  for (int64_t p = 0; p < planes; ++p) {
    const float* plane = in + p * in_size;
    float* result = out + p * out_size;
    windows.for_each([&](int64_t index, std::span<const int64_t> taps, int64_t) {
      float best = -std::numeric_limits<float>::infinity();  // a window wholly in the padding
      for (int64_t tap : taps) best = std::max(best, plane[tap]);
      result[index] = best;
    });
  }
}

OnnxImported import_max_pool(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node,
                       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  if (node.num_outputs() > 1) node.unsupported("the Indices output of MaxPool");
  if (node.attr_int("storage_order", 0) != 0) node.unsupported("storage_order 1");
  return {def.name, import_pool_window(node, true), {0}};
}

// ceil_mode and dilations exist from opset 10 on.
void export_max_pool(const Node& node, OnnxExportNode& out) {
  Attributes attrs = node.attrs;
  bool plain = attrs.get_int("ceil_mode") == 0 &&
               attrs.get_ints("dilations") == std::vector<int64_t>(attrs.get_ints("strides").size(), 1);
  if (out.opset() < 10) {
    if (!plain)
      throw UserError(
          fmt::format("node '{}' (MaxPool): ceil_mode or dilations need opset 10 or later, exporting at "
                      "opset {}; export at a newer opset",
                      node.name, out.opset()));
    attrs.erase("ceil_mode");
    attrs.erase("dilations");
  }
  out.add_node("MaxPool", {out.input(0)}, {out.output(0)}, attrs);
}

}  // namespace

OpDef make_MaxPool() {
  OpDef def;
  def.name = "MaxPool";
  def.onnx_ops = {"MaxPool"};
  def.attrs = {attr_ints("kernel_shape"), attr_ints("strides"), attr_ints("pads"), attr_ints("dilations"),
               attr_int("ceil_mode", 0)};
  def.infer = [](const ShapeContext& context) { return infer_pool(context, true); };
  def.compute = compute_max_pool;
  def.cost = pool_cost;
  def.from_onnx = import_max_pool;
  def.to_onnx = export_max_pool;
  return def;
}

}  // namespace pet::ops
