// OneHot: inserts an axis of length `depth` at `axis`; the output is values[1] where the
// position equals the index (float indices truncate; negative ones count from the end when
// wrap_negative = 1, ONNX's rule from opset 11) and values[0] everywhere else. Linear in values.
#include <cmath>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_one_hot(const ShapeContext& context) {
  const TensorType& indices = context.input(0);
  const TensorType& values = context.input(1);
  PET_REFUSE_UNLESS(context, indices.dtype != DType::boolean, "indices must be numeric, got " + indices.to_string());
  PET_REFUSE_UNLESS(context, values.shape.numel() == 2 && values.shape.rank() == 1,
                    "values " + values.to_string() + " must hold two entries: [off, on]");
  int64_t depth = context.attrs.get_int("depth");
  PET_REFUSE_UNLESS(context, depth >= 1, fmt::format("depth {} must be positive", depth));
  PET_TRY_ASSIGN(int axis, axis_or_refuse(context, context.attrs.get_int("axis"), indices.shape.rank() + 1, "axis"));
  std::vector<int64_t> dims = indices.shape.dims();
  dims.insert(dims.begin() + axis, depth);
  return {{values.dtype, Shape(dims)}};
}

static void compute_one_hot(KernelContext& context) {
  const Tensor& indices = context.input(0);
  const Tensor& values = context.input(1);
  Tensor& out = context.outputs[0];
  int64_t depth = context.attrs.get_int("depth");
  auto axis = static_cast<size_t>(context.attrs.get_int("axis"));
  bool wrap = context.attrs.get_int("wrap_negative") != 0;
  const std::vector<int64_t>& dims = indices.shape().dims();
  int64_t inner = dims_product(dims, axis, dims.size());
  std::vector<int64_t> off_offsets(static_cast<size_t>(out.numel()), 0);
  gather_elements(values, off_offsets, out);  // everything off
  std::vector<int64_t> hot;
  for (int64_t i = 0, end = indices.numel(); i < end; ++i) {
    double raw = is_float_dtype(indices.dtype()) ? std::trunc(indices.as_double(i)) : static_cast<double>(indices.as_int(i));
    if (wrap && raw < 0) raw += static_cast<double>(depth);
    if (raw < 0 || raw >= static_cast<double>(depth)) continue;  // out of range: all off
    hot.push_back(((i / inner) * depth + static_cast<int64_t>(raw)) * inner + i % inner);
  }
  Tensor on(values.dtype(), Shape{static_cast<int64_t>(hot.size())});
  gather_elements(values, std::vector<int64_t>(hot.size(), 1), on);
  scatter_blocks(out, on, hot, 1, "none");
}

static OnnxImported import_one_hot(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis"});
  const Tensor& depth = node.require_constant_input(1, "depth");
  if (depth.numel() != 1) node.fail(fmt::format("depth has {} values", depth.numel()), "give depth as a scalar");
  int rank = node.input_type(0).shape.rank() + 1;
  Attributes attrs{{"axis", int64_t{import_axis(node, node.attr_int("axis", -1), rank)}},
                   {"depth", static_cast<int64_t>(std::trunc(depth.as_double(0)))},
                   {"wrap_negative", int64_t{node.opset() >= 11 ? 1 : 0}}};
  return {def.name, attrs, {0, 2}};
}

static void export_one_hot(const Node& node, OnnxExportNode& out) {
  require_export_opset(node, out, 9, "OneHot");
  bool wrap = node.attrs.get_int("wrap_negative") != 0;
  if (wrap) require_export_opset(node, out, 11, "OneHot with negative indices counting from the end");
  if (!wrap && out.opset() >= 11)
    throw UserError(fmt::format("node '{}' (OneHot): negative indices that select nothing (wrap_negative=0) exist "
                                "only before opset 11, exporting at opset {}; export at opset 9 or 10",
                                node.name, out.opset()));
  std::string depth = out.add_constant(Tensor::i64(Shape{1}, {node.attrs.get_int("depth")}));
  out.add_node("OneHot", {out.input(0), depth, out.input(1)}, {out.output(0)}, {{"axis", node.attrs.get_int("axis")}});
}

OpDef make_OneHot() {
  OpDef def;
  def.name = "OneHot";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"OneHot"};
  def.attrs = {attr_int("axis"), attr_int("depth"), attr_int("wrap_negative", 1)};
  def.min_inputs = def.max_inputs = 2;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {1};
  def.infer = infer_one_hot;
  def.compute = compute_one_hot;
  def.cost = data_movement_cost;
  def.from_onnx = import_one_hot;
  def.to_onnx = export_one_hot;
  return def;
}

}  // namespace pet::ops
