// Shape rule, kernel and opset-dependent ONNX mapping of Softmax, LogSoftmax and Hardmax.
#include "core/ops/softmax_common.h"

#include <algorithm>
#include <cmath>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

// The input seen as [outer, reduced, inner] with the softmax taken along `reduced`.
struct SoftmaxLayout {
  int64_t outer = 1, reduced = 1, inner = 1;
};

static SoftmaxLayout softmax_layout(const Shape& shape, int axis, bool include_trailing_axes) {
  SoftmaxLayout layout;
  for (int i = 0; i < shape.rank(); ++i) {
    if (i < axis) layout.outer *= shape[i];
    else if (i == axis || include_trailing_axes) layout.reduced *= shape[i];
    else layout.inner *= shape[i];
  }
  return layout;
}

// Elements after `axis` in row-major order; 1 means both forms of the attribute agree.
static int64_t trailing_elements(const Shape& shape, int axis) {
  int64_t count = 1;
  for (int i = axis + 1; i < shape.rank(); ++i) count *= shape[i];
  return count;
}

static ShapeResult infer_softmax(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  PET_REFUSE_UNLESS(context, input.dtype == DType::f32, "expects a float32 input, got " + input.to_string());
  PET_TRY(axis_or_refuse(context, context.attrs.get_int("axis"), input.shape.rank(), "axis"));
  return {input};
}

// Softmax of `count` elements spaced `stride` apart, stable against overflow.
static void softmax_line(const float* in, float* out, int64_t count, int64_t stride, bool logarithmic) {
  float peak = -INFINITY;
  for (int64_t k = 0; k < count; ++k) peak = std::max(peak, in[k * stride]);
  double total = 0;
  for (int64_t k = 0; k < count; ++k) total += std::exp(static_cast<double>(in[k * stride] - peak));
  if (logarithmic) {
    auto log_total = static_cast<float>(std::log(total));
    for (int64_t k = 0; k < count; ++k) out[k * stride] = in[k * stride] - peak - log_total;
    return;
  }
  auto scale = static_cast<float>(1.0 / total);
  for (int64_t k = 0; k < count; ++k) out[k * stride] = std::exp(in[k * stride] - peak) * scale;
}

static void softmax_line_plain(const float* in, float* out, int64_t count, int64_t stride) {
  softmax_line(in, out, count, stride, false);
}

void softmax_rows(float* values, int64_t rows, int64_t width) {
  for (int64_t row = 0; row < rows; ++row) softmax_line(values + row * width, values + row * width, width, 1, false);
}

static void softmax_line_logarithmic(const float* in, float* out, int64_t count, int64_t stride) {
  softmax_line(in, out, count, stride, true);
}

static void compute_softmax(KernelContext& context, SoftmaxLineKernel line) {
  const Tensor& in = context.input(0);
  int axis = normalize_axis(context.attrs.get_int("axis"), in.shape().rank());
  SoftmaxLayout layout = softmax_layout(in.shape(), axis, context.attrs.get_int("include_trailing_axes") != 0);
  const float* src = in.f32().data();
  float* dst = context.outputs[0].mutable_f32().data();
  for (int64_t o = 0; o < layout.outer; ++o)
    for (int64_t i = 0; i < layout.inner; ++i) {
      int64_t start = o * layout.reduced * layout.inner + i;
      line(src + start, dst + start, layout.reduced, layout.inner);
    }
}

static OnnxImported import_softmax(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis"});
  const Shape& shape = node.input_type(0).shape;
  bool coerced_2d = node.opset() < 13;
  int axis = import_axis(node, node.attr_int("axis", coerced_2d ? 1 : -1), shape.rank());
  bool include_trailing_axes = coerced_2d && trailing_elements(shape, axis) != 1;
  return {def.name, {{"axis", int64_t{axis}}, {"include_trailing_axes", int64_t{include_trailing_axes}}}, {0}};
}

// softmax along `axis` from primitives: e = exp(x - max), then e / sum(e) or (x - max) - log(sum(e)).
static void export_decomposed(const std::string& name, int64_t axis, OnnxExportNode& out) {
  Attributes reduce{{"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t{1}}};
  std::string peak = out.fresh_name("softmax_max"), shifted = out.fresh_name("softmax_shifted");
  std::string exps = out.fresh_name("softmax_exp"), total = out.fresh_name("softmax_sum");
  out.add_node("ReduceMax", {out.input(0)}, {peak}, reduce);
  out.add_node("Sub", {out.input(0), peak}, {shifted}, {});
  out.add_node("Exp", {shifted}, {exps}, {});
  out.add_node("ReduceSum", {exps}, {total}, reduce);
  if (name == "Softmax") {
    out.add_node("Div", {exps, total}, {out.output(0)}, {});
    return;
  }
  std::string log_total = out.fresh_name("softmax_log_sum");
  out.add_node("Log", {total}, {log_total}, {});
  out.add_node("Sub", {shifted, log_total}, {out.output(0)}, {});
}

// Opset 13+ has no 2-D coercion: flatten at `axis`, normalize rows, restore the shape.
static void export_flattened(const std::string& name, int64_t axis, OnnxExportNode& out) {
  std::string flat = out.fresh_name("softmax_2d"), normalized = out.fresh_name("softmax_rows");
  std::string shape = out.fresh_name("softmax_shape");
  out.add_node("Flatten", {out.input(0)}, {flat}, {{"axis", axis}});
  out.add_node(name, {flat}, {normalized}, {{"axis", int64_t{1}}});
  out.add_node("Shape", {out.input(0)}, {shape}, {});
  out.add_node("Reshape", {normalized, shape}, {out.output(0)}, {});
}

// Opset < 13 normalizes `axis` and all later axes: move `axis` last, normalize it, move it back.
static void export_transposed(const std::string& name, int64_t axis, int rank, OnnxExportNode& out) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i == axis ? rank - 1 : i == rank - 1 ? axis : i);
  std::string moved = out.fresh_name("softmax_axis_last"), normalized = out.fresh_name("softmax_rows");
  out.add_node("Transpose", {out.input(0)}, {moved}, {{"perm", perm}});
  out.add_node(name, {moved}, {normalized}, {{"axis", int64_t{rank - 1}}});
  out.add_node("Transpose", {normalized}, {out.output(0)}, {{"perm", perm}});
}

static void export_softmax(const Node& node, bool decomposable, OnnxExportNode& out) {
  const std::string& name = node.op();
  int64_t axis = node.attrs.get_int("axis");
  bool include_trailing_axes = node.attrs.get_int("include_trailing_axes") != 0;
  bool coerced_2d = out.opset() < 13;
  std::optional<TensorType> type = out.input_type(0);
  if (type) axis = normalize_axis(axis, type->shape.rank());
  bool same_either_way = type && trailing_elements(type->shape, static_cast<int>(axis)) == 1;
  if (include_trailing_axes == coerced_2d || same_either_way) {
    out.add_node(name, {out.input(0)}, {out.output(0)}, {{"axis", axis}});
  } else if (coerced_2d && decomposable) {
    export_decomposed(name, axis, out);
  } else if (coerced_2d) {
    PET_CHECK(type.has_value(), "exporting a single-axis " + name + " below opset 13 needs the input's rank");
    export_transposed(name, axis, type->shape.rank(), out);
  } else {
    export_flattened(name, axis, out);
  }
}

static OpDef softmax_family_def(const std::string& name, SoftmaxLineKernel line, bool decomposable) {
  OpDef def;
  def.name = name;
  def.onnx_ops = {name};
  def.attrs = {attr_int("axis", -1), attr_int("include_trailing_axes", 0)};
  def.infer = infer_softmax;
  def.compute = [line](KernelContext& context) { compute_softmax(context, line); };
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 12.0); };
  def.from_onnx = import_softmax;
  def.to_onnx = [decomposable](const Node& node, OnnxExportNode& out) { export_softmax(node, decomposable, out); };
  return with_bfloat16_through_float(std::move(def));
}

OpDef softmax_family_op(const std::string& name, bool logarithmic) {
  return softmax_family_def(name, logarithmic ? softmax_line_logarithmic : softmax_line_plain, true);
}

OpDef softmax_family_op(const std::string& name, SoftmaxLineKernel line) {
  return softmax_family_def(name, line, false);
}

}  // namespace pet::ops
