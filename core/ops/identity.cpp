// Identity: output equals input, for any element type.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Identity() {
  OpDef def;
  def.name = "Identity";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Identity"};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.elementwise = true;
  def.traits.identity_like = true;
  def.infer = [](const ShapeContext& context) { return std::vector<TensorType>{context.input(0)}; };
  def.compute = [](KernelContext& context) { context.outputs[0] = context.input(0); };
  def.cost = data_movement_cost;
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  def.eval_point = elementwise_point([](const uint64_t* v, int) { return v[0]; });
  def.propagate_boxes = elementwise_boxes();
  return def;
}

}  // namespace pet::ops
