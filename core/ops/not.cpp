// Not: elementwise logical negation of a bool tensor.
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Not() {
  OpDef def;
  def.name = "Not";
  def.onnx_ops = {"Not"};
  def.traits.elementwise = true;
  def.infer = [](const ShapeContext& context) -> ShapeResult {
    PET_REFUSE_UNLESS(context, context.input(0).dtype == DType::boolean,
                      "expects a bool input, got " + context.input(0).to_string());
    return std::vector<TensorType>{context.input(0)};
  };
  def.compute = [](KernelContext& context) {
    auto in = context.input(0).b8();
    auto out = context.outputs[0].mutable_b8();
    for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] ? 0 : 1;
  };
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
