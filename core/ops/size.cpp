// Size: the input's element count as an i64 scalar; depends only on the input type.
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_size(const ShapeContext&) { return {{DType::i64, Shape{}}}; }

static void size_kernel(KernelContext& context) { context.outputs[0].mutable_i64()[0] = context.input(0).numel(); }

static OnnxImported import_size(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {});
  return {"Size", {}, {0}};
}

static Cost size_cost(const CostContext& context) { return {0.0, context.output_bytes()}; }

OpDef make_Size() {
  OpDef def;
  def.name = "Size";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Size"};
  def.traits.type_only = true;
  def.infer = infer_size;
  def.compute = size_kernel;
  def.cost = size_cost;
  def.from_onnx = import_size;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
