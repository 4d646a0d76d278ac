// GlobalAveragePool: the mean of each [n, c] plane over all spatial dims.
#include "core/ops/global_pooling.h"
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_GlobalAveragePool() {
  OpDef def;
  def.name = "GlobalAveragePool";
  def.onnx_ops = {"GlobalAveragePool"};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = infer_global_pool;
  def.compute = [](KernelContext& context) {
    reduce_planes(context, [](std::span<const float> plane) {
      double sum = 0;
      for (float v : plane) sum += v;
      return plane.empty() ? 0.0f : static_cast<float>(sum / static_cast<double>(plane.size()));
    });
  };
  def.cost = [](const CostContext& context) {
    return Cost{static_cast<double>(context.input(0).shape.numel()), context.input_bytes() + context.output_bytes()};
  };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
