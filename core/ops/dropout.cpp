// Dropout in inference form: the output equals the input and the optional mask (canonical
// attribute with_mask = 1) is all true. Training mode is rejected at import.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_dropout(const ShapeContext& context) {
  std::vector<TensorType> outputs{context.input(0)};
  if (context.attrs.get_int("with_mask") != 0) outputs.push_back({DType::boolean, context.input(0).shape});
  return outputs;
}

static void compute_dropout(KernelContext& context) {
  context.outputs[0] = context.input(0);
  if (context.outputs.size() > 1)
    for (uint8_t& kept : context.outputs[1].mutable_b8()) kept = 1;
}

// Opset 12 moved ratio and training_mode from attributes to optional inputs; ratio does not
// matter in inference, training_mode must be a constant false.
static void reject_training_mode(const OnnxImportNode& node) {
  if (node.opset() < 12 || !node.has_input(2)) return;
  const Tensor& training = node.require_constant_input(2, "training_mode");
  if (training.numel() != 1 || training.as_double(0) != 0.0) node.unsupported("training_mode=1 (training)");
}

static OnnxImported import_dropout(const OpDef& def, const OnnxImportNode& node) {
  std::vector<std::string> known{node.opset() >= 12 ? "seed" : "ratio"};
  if (node.opset() < 7) known.push_back("is_test");
  reject_unknown_attrs(node, known);
  if (node.opset() < 7 && node.attr_int("is_test", 0) == 0) node.unsupported("is_test=0 (training)");
  reject_training_mode(node);
  bool with_mask = node.num_outputs() > 1;
  if (with_mask && node.opset() < 10) node.unsupported("the mask output before opset 10 (it is not bool there)");
  return {def.name, {{"with_mask", int64_t{with_mask ? 1 : 0}}}, {0}};
}

// Before opset 10 Dropout's mask is not bool, so an all-true mask is built from x's shape.
static void export_dropout(const Node& node, OnnxExportNode& out) {
  bool with_mask = node.attrs.get_int("with_mask") != 0;
  if (!with_mask || out.opset() >= 10) {
    std::vector<std::string> outputs{out.output(0)};
    if (with_mask) outputs.push_back(out.output(1));
    out.add_node("Dropout", {out.input(0)}, outputs, {});
    return;
  }
  out.add_node("Identity", {out.input(0)}, {out.output(0)}, {});
  std::string shape = out.fresh_name("dropout_shape");
  std::string zeros = out.fresh_name("dropout_zeros");
  std::string falses = out.fresh_name("dropout_false");
  out.add_node("Shape", {out.input(0)}, {shape}, {});
  out.add_node("ConstantOfShape", {shape}, {zeros}, {});
  out.add_node("Cast", {zeros}, {falses}, {{"to", int64_t{9}}});
  out.add_node("Not", {falses}, {out.output(1)}, {});
}

OpDef make_Dropout() {
  OpDef def;
  def.name = "Dropout";
  def.extra_types = kFloatDTypes;
  def.onnx_ops = {"Dropout"};
  def.attrs = {attr_int("with_mask", 0)};
  def.num_outputs = -1;  // 1, or 2 with the mask
  def.traits.elementwise = true;
  def.traits.identity_like = true;
  def.infer = infer_dropout;
  def.compute = compute_dropout;
  def.cost = data_movement_cost;
  def.from_onnx = import_dropout;
  def.to_onnx = export_dropout;
  return def;
}

}  // namespace pet::ops
