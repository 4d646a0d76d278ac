// ConstantOfShape: a tensor of a given shape filled with one value (shape and value are attributes).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_constant_of_shape(const ShapeContext& context) {
  const auto& shape = context.attrs.get_ints("shape");
  const std::string& name = context.attrs.get_string("dtype");
  std::optional<DType> dtype = parse_dtype(name);
  PET_REFUSE_UNLESS(context, dtype.has_value(), "dtype '" + name + "' is not an element type pet holds");
  for (int64_t d : shape)
    PET_REFUSE_UNLESS(context, d >= 0, "shape " + ints_to_string(shape) + " has a negative dimension");
  return {{*dtype, Shape(shape)}};
}

static void constant_of_shape_kernel(KernelContext& context) {
  Tensor& out = context.outputs[0];
  double value = context.attrs.get_float("value");
  if (value == 0.0) return;  // outputs start zero-filled
  out = Tensor::full(out.dtype(), out.shape(), value);
}

static OnnxImported import_constant_of_shape(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"value"});
  double value = 0.0;
  DType dtype = DType::f32;
  if (node.has_attr("value")) {
    Tensor fill = node.attr_tensor("value");
    if (fill.numel() != 1)
      node.fail(fmt::format("value holds {} elements", fill.numel()), "give a one-element value tensor");
    value = fill.as_double(0);
    dtype = fill.dtype();
  }
  std::vector<int64_t> shape = constant_ints(node, 0, "shape");
  return {"ConstantOfShape", {{"shape", shape}, {"value", value}, {"dtype", std::string(dtype_name(dtype))}}, {}};
}

// The default fill (f32 zero) exports as itself; other fills need a tensor attribute, which
// exported attributes cannot carry, so they become Expand of a scalar (or the whole constant).
static void export_constant_of_shape(const Node& node, OnnxExportNode& out) {
  const auto& shape = node.attrs.get_ints("shape");
  DType dtype = *parse_dtype(node.attrs.get_string("dtype"));
  double value = node.attrs.get_float("value");
  Tensor dims = Tensor::i64(Shape{static_cast<int64_t>(shape.size())}, shape);
  if (out.opset() >= 9 && dtype == DType::f32 && value == 0.0) {
    out.add_node("ConstantOfShape", {out.add_constant(dims)}, {out.output(0)}, {});
    return;
  }
  Tensor scalar = Tensor::full(dtype, Shape{}, value);
  if (out.opset() >= 8) {
    out.add_node("Expand", {out.add_constant(scalar), out.add_constant(dims)}, {out.output(0)}, {});
    return;
  }
  Tensor full(dtype, Shape(shape));
  for (int64_t i = 0, end = full.numel(); i < end; ++i)
    std::memcpy(full.mutable_raw() + static_cast<size_t>(i) * dtype_size(dtype), scalar.raw(), dtype_size(dtype));
  out.add_node("Identity", {out.add_constant(full)}, {out.output(0)}, {});
}

static Cost constant_of_shape_cost(const CostContext& context) { return {0.0, context.output_bytes()}; }

OpDef make_ConstantOfShape() {
  OpDef def;
  def.name = "ConstantOfShape";
  def.onnx_ops = {"ConstantOfShape"};
  def.attrs = {attr_ints("shape"), attr_float("value", 0.0), attr_string("dtype", "f32")};
  def.min_inputs = def.max_inputs = 0;
  def.extra_types = kNumericDTypes;
  def.infer = infer_constant_of_shape;
  def.compute = constant_of_shape_kernel;
  def.cost = constant_of_shape_cost;
  def.from_onnx = import_constant_of_shape;
  def.to_onnx = export_constant_of_shape;
  return def;
}

}  // namespace pet::ops
