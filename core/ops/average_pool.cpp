// AveragePool: N-D mean over sliding windows, padding counted or not (count_include_pad).
#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/pooling.h"

namespace pet::ops {
namespace {

void compute_average_pool(KernelContext& context) {
  const Tensor& x = context.input(0);
  WindowGeometry geometry = pool_geometry(x.shape(), context.attrs);
  PoolWindows windows(geometry, context.attrs.get_ints("pads"));
  bool include_pad = context.attrs.get_int("count_include_pad") != 0;
  int64_t planes = x.shape()[0] * x.shape()[1];
  int64_t in_size = geometry.input_size(), out_size = geometry.output_size();
  const float* in = x.f32().data();
  float* out = context.outputs[0].mutable_f32().data();
  for (int64_t p = 0; p < planes; ++p) {
    const float* plane = in + p * in_size;
    float* result = out + p * out_size;
    windows.for_each([&](int64_t index, std::span<const int64_t> taps, int64_t padded) {
      float sum = 0.0f;
      for (int64_t tap : taps) sum += plane[tap];
      auto divisor = include_pad ? padded : static_cast<int64_t>(taps.size());
      result[index] = divisor > 0 ? sum / static_cast<float>(divisor) : 0.0f;
    });
  }
}

OnnxImported import_average_pool(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node,
                       {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"});
  OnnxImported result{def.name, import_pool_window(node, false), {0}};
  result.attrs.set("count_include_pad", node.attr_int("count_include_pad", 0));
  return result;
}

// ceil_mode exists from opset 10 on.
void export_average_pool(const Node& node, OnnxExportNode& out) {
  Attributes attrs = node.attrs;
  if (out.opset() < 10) {
    if (attrs.get_int("ceil_mode") != 0)
      throw UserError(
          fmt::format("node '{}' (AveragePool): ceil_mode needs opset 10 or later, exporting at opset "
                      "{}; export at a newer opset",
                      node.name, out.opset()));
    attrs.erase("ceil_mode");
  }
  out.add_node("AveragePool", {out.input(0)}, {out.output(0)}, attrs);
}

}  // namespace

OpDef make_AveragePool() {
  OpDef def;
  def.name = "AveragePool";
  def.onnx_ops = {"AveragePool"};
  def.attrs = {attr_ints("kernel_shape"), attr_ints("strides"), attr_ints("pads"), attr_int("ceil_mode", 0),
               attr_int("count_include_pad", 0)};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = [](const ShapeContext& context) {
    int64_t include = context.attrs.get_int("count_include_pad");
    context.require(include == 0 || include == 1, fmt::format("count_include_pad {} must be 0 or 1", include));
    return infer_pool(context, false);
  };
  def.compute = compute_average_pool;
  def.cost = pool_cost;
  def.from_onnx = import_average_pool;
  def.to_onnx = export_average_pool;
  return def;
}

}  // namespace pet::ops
