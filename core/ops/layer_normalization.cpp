// LayerNormalization (opset 17): normalize over `axis` and every later axis, then scale and
// optionally shift; with_statistics = 1 adds the Mean and InvStdDev outputs (float32 stash).
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/row_normalization.h"

namespace pet::ops {

static ShapeResult infer_layer_normalization(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  PET_TRY(axis_or_refuse(context, context.attrs.get_int("axis"), x.shape.rank(), "axis"));
  for (int i = 0; i < context.num_inputs(); ++i) {
    if (!context.has_input(i)) continue;
    const TensorType& input = context.input(i);
    PET_REFUSE_UNLESS(context, input.dtype == DType::f32,
                      fmt::format("input {} must be float32, got {}", i, input.to_string()));
    if (i == 0) continue;
    auto merged = broadcast_shapes(x.shape, input.shape);
    PET_REFUSE_UNLESS(context, merged && *merged == x.shape,
                      fmt::format("{} of shape {} does not broadcast to x's shape {}", i == 1 ? "scale" : "bias",
                                  input.shape.to_string(), x.shape.to_string()));
  }
  if (context.attrs.get_int("with_statistics") == 0) return {x};
  int axis = normalize_axis(context.attrs.get_int("axis"), x.shape.rank());
  Shape statistics = x.shape;
  for (int i = axis; i < x.shape.rank(); ++i) statistics[i] = 1;
  return {x, {DType::f32, statistics}, {DType::f32, statistics}};
}

// out = out * scale (+ bias), with scale and bias broadcast to out's shape.
static void apply_affine(KernelContext& context, Tensor& out) {
  BroadcastIndex scale_index(context.input(1).shape(), out.shape());
  BroadcastIndex::Cursor scale_at = scale_index.cursor();
  auto scale = context.input(1).f32();
  auto values = out.mutable_f32();
  for (size_t i = 0; i < values.size(); ++i) values[i] *= scale[scale_at.next()];
  if (!context.has_input(2)) return;
  BroadcastIndex bias_index(context.input(2).shape(), out.shape());
  BroadcastIndex::Cursor bias_at = bias_index.cursor();
  auto bias = context.input(2).f32();
  for (size_t i = 0; i < values.size(); ++i) values[i] += bias[bias_at.next()];
}

static void compute_layer_normalization(KernelContext& context) {
  const Tensor& x = context.input(0);
  Tensor& out = context.outputs[0];
  int axis = normalize_axis(context.attrs.get_int("axis"), x.shape().rank());
  int64_t rows = 1;
  for (int i = 0; i < axis; ++i) rows *= x.shape()[i];
  int64_t width = rows == 0 ? 0 : x.numel() / rows;
  RowStatistics statistics;
  if (context.outputs.size() == 3) {
    statistics.mean = context.outputs[1].mutable_f32().data();
    statistics.inverse_stddev = context.outputs[2].mutable_f32().data();
  }
  normalize_rows(x.f32().data(), out.mutable_f32().data(), rows, width, context.attrs.get_float("epsilon"), statistics);
  apply_affine(context, out);
}

static OnnxImported import_layer_normalization(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis", "epsilon", "stash_type"});
  if (node.attr_int("stash_type", 1) != 1) node.unsupported("stash_type other than 1 (float32)");
  int axis = import_axis(node, node.attr_int("axis", -1), node.input_type(0).shape.rank());
  Attributes attrs{{"axis", int64_t{axis}},
                   {"epsilon", node.attr_float("epsilon", 1e-5)},
                   {"with_statistics", int64_t{node.num_outputs() > 1}}};
  std::vector<int> inputs{0, 1};
  if (node.has_input(2)) inputs.push_back(2);
  return {def.name, attrs, inputs};
}

static void export_layer_normalization(const Node& node, OnnxExportNode& out) {
  std::vector<std::string> inputs{out.input(0), out.input(1)};
  if (node.inputs.size() > 2) inputs.push_back(out.input(2));
  std::vector<std::string> outputs;
  for (size_t i = 0; i < node.outputs.size(); ++i) outputs.push_back(out.output(static_cast<int>(i)));
  out.add_node("LayerNormalization", inputs, outputs,
               {{"axis", node.attrs.get_int("axis")}, {"epsilon", node.attrs.get_float("epsilon")}});
}

OpDef make_LayerNormalization() {
  OpDef def;
  def.name = "LayerNormalization";
  def.onnx_ops = {"LayerNormalization"};
  def.attrs = {attr_int("axis", -1), attr_float("epsilon", 1e-5), attr_int("with_statistics", 0)};
  def.num_outputs = -1;  // Y, plus Mean and InvStdDev with statistics
  def.min_inputs = 2;
  def.max_inputs = 3;
  def.infer = infer_layer_normalization;
  def.compute = compute_layer_normalization;
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 8.0); };
  def.from_onnx = import_layer_normalization;
  def.to_onnx = export_layer_normalization;
  return with_bfloat16_through_float(std::move(def));
}

}  // namespace pet::ops
