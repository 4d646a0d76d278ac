// Shape rule, kernel and ONNX mapping (select_last_index from opset 12) of ArgMax and ArgMin.
#include "core/ops/arg_reduce_common.h"

#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_arg_reduce(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  PET_REFUSE_UNLESS(context, input.dtype != DType::boolean, "does not support element type bool");
  PET_TRY_ASSIGN(int axis, axis_or_refuse(context, context.attrs.get_int("axis"), input.shape.rank(), "axis"));
  PET_REFUSE_UNLESS(
      context, input.shape[axis] > 0,
      fmt::format("axis {} of shape {} is empty, so it has no extreme element", axis, input.shape.to_string()));
  std::vector<int64_t> dims;
  for (int i = 0; i < input.shape.rank(); ++i) {
    if (i != axis) dims.push_back(input.shape[i]);
    else if (context.attrs.get_int("keepdims") != 0) dims.push_back(1);
  }
  return {{DType::i64, Shape(dims)}};
}

// Index of the extreme among `count` values spaced `stride` apart; ties go to the first or last.
template <DType D>
static int64_t extreme_index(const storage_t<D>* values, int64_t count, int64_t stride, bool find_max, bool last) {
  int64_t best = 0;
  for (int64_t k = 1; k < count; ++k) {
    compute_t<D> value = widen<D>(values[k * stride]), current = widen<D>(values[best * stride]);
    bool better = find_max ? value > current : value < current;
    if (better || (last && value == current)) best = k;
  }
  return best;
}

template <DType D>
static void arg_reduce_into(const Tensor& in, int axis, bool find_max, bool last, int64_t* out) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= in.shape()[i];
  for (int i = axis + 1; i < in.shape().rank(); ++i) inner *= in.shape()[i];
  int64_t count = in.shape()[axis];
  const storage_t<D>* values = in.view<D>().data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      out[o * inner + i] = extreme_index<D>(values + o * count * inner + i, count, inner, find_max, last);
}

static void compute_arg_reduce(KernelContext& context, bool find_max) {
  const Tensor& in = context.input(0);
  int axis = normalize_axis(context.attrs.get_int("axis"), in.shape().rank());
  bool last = context.attrs.get_int("select_last_index") != 0;
  int64_t* out = context.outputs[0].mutable_i64().data();
  visit_dtype(in.dtype(), [&]<DType D>() { arg_reduce_into<D>(in, axis, find_max, last, out); });
}

static OnnxImported import_arg_reduce(const OpDef& def, const OnnxImportNode& node) {
  bool has_last = node.opset() >= 12;
  reject_unknown_attrs(node, has_last ? std::vector<std::string>{"axis", "keepdims", "select_last_index"}
                                      : std::vector<std::string>{"axis", "keepdims"});
  int axis = import_axis(node, node.attr_int("axis", 0), node.input_type(0).shape.rank());
  return {def.name,
          {{"axis", int64_t{axis}},
           {"keepdims", node.attr_int("keepdims", 1)},
           {"select_last_index", has_last ? node.attr_int("select_last_index", 0) : int64_t{0}}},
          {0}};
}

static void export_arg_reduce(const Node& node, OnnxExportNode& out) {
  Attributes attrs{{"axis", node.attrs.get_int("axis")}, {"keepdims", node.attrs.get_int("keepdims")}};
  int64_t last = node.attrs.get_int("select_last_index");
  if (out.opset() >= 12) attrs.set("select_last_index", last);
  else if (last != 0)
    throw UserError(fmt::format("node '{}' ({}): select_last_index needs opset 12 or newer; export with opset >= 12",
                                node.name, node.op()));
  out.add_node(node.op(), {out.input(0)}, {out.output(0)}, attrs);
}

OpDef arg_reduce_op(const std::string& name, bool find_max) {
  OpDef def;
  def.name = name;
  def.extra_types = kNumericDTypes;
  def.onnx_ops = {name};
  def.attrs = {attr_int("axis", 0), attr_int("keepdims", 1), attr_int("select_last_index", 0)};
  def.infer = infer_arg_reduce;
  def.compute = [find_max](KernelContext& context) { compute_arg_reduce(context, find_max); };
  def.cost = [](const CostContext& context) {
    return Cost{static_cast<double>(context.input(0).shape.numel()), context.input_bytes() + context.output_bytes()};
  };
  def.from_onnx = import_arg_reduce;
  def.to_onnx = export_arg_reduce;
  return def;
}

}  // namespace pet::ops
