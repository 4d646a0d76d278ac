// Clip: min(max(x, min), max) elementwise on f32 or i64. The bounds are canonical float
// attributes (-inf / +inf when absent), whether ONNX gave them as attributes (opset < 11) or as
// constant inputs (opset >= 11).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

static ShapeResult infer_clip(const ShapeContext& context) {
  DType type = context.input(0).dtype;
  PET_REFUSE_UNLESS(context, type == DType::f32 || type == DType::i64,
                    "does not support element type " + std::string(dtype_name(type)));
  return {context.input(0)};
}

// An integer bound from a float one; infinities mean no bound.
static int64_t int_bound(double bound) {
  if (bound <= static_cast<double>(std::numeric_limits<int64_t>::min())) return std::numeric_limits<int64_t>::min();
  if (bound >= static_cast<double>(std::numeric_limits<int64_t>::max())) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(bound);
}

static void compute_clip(KernelContext& context) {
  double low = context.attrs.get_float("min"), high = context.attrs.get_float("max");
  const Tensor& in = context.input(0);
  Tensor& out = context.outputs[0];
  if (in.dtype() == DType::f32) {
    auto low32 = static_cast<float>(low), high32 = static_cast<float>(high);
    map_unary_f32(in, out, [=](float x) { return std::min(std::max(x, low32), high32); });
    return;
  }
  int64_t low64 = int_bound(low), high64 = int_bound(high);
  auto src = in.i64();
  auto dst = out.mutable_i64();
  for (size_t i = 0; i < src.size(); ++i) dst[i] = std::min(std::max(src[i], low64), high64);
}

// Bound INDEX (1: min, 2: max) from a constant scalar input, or `fallback` when absent.
static double constant_bound(const OnnxImportNode& node, int index, const std::string& what, double fallback) {
  if (!node.has_input(index)) return fallback;
  const Tensor& bound = node.require_constant_input(index, what);
  if (bound.numel() != 1)
    node.fail(fmt::format("{} has {} elements", what, bound.numel()), "give " + what + " as a scalar");
  return bound.as_double(0);
}

static OnnxImported import_clip(const OpDef& def, const OnnxImportNode& node) {
  Attributes attrs;
  if (node.opset() < 11) {
    reject_unknown_attrs(node, {"min", "max"});
    attrs.set("min", node.attr_float("min", -kInfinity));
    attrs.set("max", node.attr_float("max", kInfinity));
  } else {
    reject_unknown_attrs(node, {});
    attrs.set("min", constant_bound(node, 1, "min", -kInfinity));
    attrs.set("max", constant_bound(node, 2, "max", kInfinity));
  }
  return {def.name, attrs, {0}};
}

// A bound as an ONNX constant input of the input's element type, or "" (absent) when infinite.
static std::string bound_input(OnnxExportNode& out, double bound, DType type) {
  if (std::isinf(bound)) return "";
  return out.add_constant(type == DType::i64 ? Tensor::scalar_i64(int_bound(bound))
                                             : Tensor::scalar_f32(static_cast<float>(bound)));
}

static void export_clip(const Node& node, OnnxExportNode& out) {
  double low = node.attrs.get_float("min"), high = node.attrs.get_float("max");
  if (out.opset() < 11) {
    Attributes attrs;
    if (!std::isinf(low)) attrs.set("min", low);
    if (!std::isinf(high)) attrs.set("max", high);
    out.add_node("Clip", {out.input(0)}, {out.output(0)}, attrs);
    return;
  }
  std::optional<TensorType> type = out.input_type(0);
  DType element = type ? type->dtype : DType::f32;
  std::vector<std::string> inputs{out.input(0), bound_input(out, low, element), bound_input(out, high, element)};
  while (inputs.back().empty()) inputs.pop_back();
  out.add_node("Clip", inputs, {out.output(0)}, {});
}

OpDef make_Clip() {
  OpDef def;
  def.name = "Clip";
  def.onnx_ops = {"Clip"};
  def.attrs = {attr_float("min", -kInfinity), attr_float("max", kInfinity)};
  def.traits.elementwise = true;
  def.infer = infer_clip;
  def.compute = compute_clip;
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 2.0); };
  def.from_onnx = import_clip;
  def.to_onnx = export_clip;
  return def;
}

}  // namespace pet::ops
