// Range: start, start + delta, ... up to (excluding) limit, as f32, f64, i16, i32 or i64; the scalars are
// attributes because they decide the output length.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static constexpr DTypeSet kRangeDTypes = {DType::f32, DType::f64, DType::i16, DType::i32, DType::i64};

static int64_t range_length(double start, double limit, double delta) {
  return std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
}

static ShapeResult infer_range(const ShapeContext& context) {
  double start = context.attrs.get_float("start"), limit = context.attrs.get_float("limit"),
         delta = context.attrs.get_float("delta");
  const std::string& name = context.attrs.get_string("dtype");
  std::optional<DType> dtype = parse_dtype(name);
  PET_REFUSE_UNLESS(context, dtype && kRangeDTypes.contains(*dtype),
                    "dtype '" + name + "' is not one of f32, f64, i16, i32, i64 (ONNX's Range types)");
  PET_REFUSE_UNLESS(context, delta != 0.0, "delta is 0");
  return {{*dtype, Shape{range_length(start, limit, delta)}}};
}

// ONNX's definition: output[i] = start + i * delta, in int64 for integer types (then narrowed)
// and in double for float types.
static void range_kernel(KernelContext& context) {
  double start = context.attrs.get_float("start"), delta = context.attrs.get_float("delta");
  Tensor& out = context.outputs[0];
  visit_dtype(out.dtype(), [&]<DType D>() {
    auto values = out.mutable_view<D>();
    if constexpr (is_integer_dtype(D)) {
      auto first = static_cast<int64_t>(start), step = static_cast<int64_t>(delta);
      for (size_t i = 0; i < values.size(); ++i) values[i] = narrow<D>(first + static_cast<int64_t>(i) * step);
    } else {
      for (size_t i = 0; i < values.size(); ++i) values[i] = narrow<D>(start + static_cast<double>(i) * delta);
    }
  });
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

// Range exists from opset 11; before that the (always constant) result is exported as itself.
static void export_range(const Node& node, OnnxExportNode& out) {
  DType dtype = *parse_dtype(node.attrs.get_string("dtype"));
  if (out.opset() >= 11) {
    std::vector<std::string> inputs;
    for (const char* name : {"start", "limit", "delta"})
      inputs.push_back(out.add_constant(Tensor::full(dtype, Shape{}, node.attrs.get_float(name))));
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
  def.extra_types = kRangeDTypes;
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
