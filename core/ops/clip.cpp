// Clip: min(max(x, min), max) elementwise on any numeric type. The bounds are canonical float
// attributes (-inf / +inf when absent), whether ONNX gave them as attributes (opset < 11) or as
// constant inputs (opset >= 11); an integer input reads them saturated to its range (so a
// 64-bit bound beyond 2^53 is as exact as a double holds it).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

static ShapeResult infer_clip(const ShapeContext& context) { return infer_unary(context, kNumericDTypes); }

// A bound in the compute type of D: floats round, integers saturate (infinities mean no bound).
template <DType D>
static compute_t<D> typed_bound(double bound) {
  if constexpr (std::is_floating_point_v<compute_t<D>>) return static_cast<compute_t<D>>(bound);
  else return truncate_float<compute_t<D>>(bound);
}

static void compute_clip(KernelContext& context) {
  double low = context.attrs.get_float("min"), high = context.attrs.get_float("max");
  visit_allowed<kNumericDTypes>(context.input(0).dtype(), [&]<DType D>() {
    compute_t<D> typed_low = typed_bound<D>(low), typed_high = typed_bound<D>(high);
    map_elements<D, D>(context.input(0), context.outputs[0],
                       [=](compute_t<D> x) { return std::min(std::max(x, typed_low), typed_high); });
  });
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
  return out.add_constant(Tensor::full(type, Shape{}, bound));
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
  def.extra_types = kNumericDTypes;
  def.infer = infer_clip;
  def.compute = compute_clip;
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 2.0); };
  def.from_onnx = import_clip;
  def.to_onnx = export_clip;
  return def;
}

}  // namespace pet::ops
