// Range: start, start + delta, ... up to (excluding) limit, as f32 or i64; the scalars are
// attributes because they decide the output length.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static int64_t range_length(double start, double limit, double delta) {
  return std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
}

static ShapeResult infer_range(const ShapeContext& context) {
  double start = context.attrs.get_float("start"), limit = context.attrs.get_float("limit"),
         delta = context.attrs.get_float("delta");
  const std::string& name = context.attrs.get_string("dtype");
  PET_REFUSE_UNLESS(context, name == "f32" || name == "i64", "dtype '" + name + "' is not one of f32, i64");
  PET_REFUSE_UNLESS(context, delta != 0.0, "delta is 0");
  return {{*parse_dtype(name), Shape{range_length(start, limit, delta)}}};
}

static void range_kernel(KernelContext& context) {
  double start = context.attrs.get_float("start"), delta = context.attrs.get_float("delta");
  Tensor& out = context.outputs[0];
  if (out.dtype() == DType::i64) {
    auto values = out.mutable_i64();
    auto first = static_cast<int64_t>(start), step = static_cast<int64_t>(delta);
    for (size_t i = 0; i < values.size(); ++i) values[i] = first + static_cast<int64_t>(i) * step;
    return;
  }
  auto values = out.mutable_f32();  // ONNX's definition: output[i] = start + i * delta
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(start + static_cast<double>(i) * delta);
}

static OnnxImported import_range(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {});
  const Tensor& start = node.require_constant_input(0, "start");
  const Tensor& limit = node.require_constant_input(1, "limit");
  const Tensor& delta = node.require_constant_input(2, "delta");
  for (const Tensor* scalar : {&start, &limit, &delta})
    if (scalar->numel() != 1) node.fail("start, limit and delta must be scalars", "pass one-element tensors");
  if (start.dtype() == DType::boolean) node.unsupported("element type bool");
  return {"Range",
          {{"start", start.as_double(0)},
           {"limit", limit.as_double(0)},
           {"delta", delta.as_double(0)},
           {"dtype", std::string(dtype_name(start.dtype()))}},
          {}};
}

static Tensor scalar_of(DType dtype, double value) {
  return dtype == DType::i64 ? Tensor::scalar_i64(static_cast<int64_t>(value)) : Tensor::scalar_f32(static_cast<float>(value));
}

// Range exists from opset 11; before that the (always constant) result is exported as itself.
static void export_range(const Node& node, OnnxExportNode& out) {
  DType dtype = *parse_dtype(node.attrs.get_string("dtype"));
  if (out.opset() >= 11) {
    std::vector<std::string> inputs;
    for (const char* name : {"start", "limit", "delta"})
      inputs.push_back(out.add_constant(scalar_of(dtype, node.attrs.get_float(name))));
    out.add_node("Range", inputs, {out.output(0)}, {});
    return;
  }
  Shape shape{range_length(node.attrs.get_float("start"), node.attrs.get_float("limit"), node.attrs.get_float("delta"))};
  Tensor values(dtype, shape);
  KernelContext context{node.attrs, {}, std::span<Tensor>(&values, 1)};
  range_kernel(context);
  out.add_node("Identity", {out.add_constant(values)}, {out.output(0)}, {});
}

static Cost range_cost(const CostContext& context) { return {0.0, context.output_bytes()}; }

OpDef make_Range() {
  OpDef def;
  def.name = "Range";
  def.onnx_ops = {"Range"};
  def.attrs = {attr_float("start"), attr_float("limit"), attr_float("delta"), attr_string("dtype", "f32")};
  def.min_inputs = def.max_inputs = 0;
  def.infer = infer_range;
  def.compute = range_kernel;
  def.cost = range_cost;
  def.from_onnx = import_range;
  def.to_onnx = export_range;
  return def;
}

}  // namespace pet::ops
