// GlobalMaxPool: the maximum of each [n, c] plane over all spatial dims.
#include <algorithm>
#include <limits>

#include "core/ops/global_pooling.h"
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_GlobalMaxPool() {
  OpDef def;
  def.name = "GlobalMaxPool";
  def.onnx_ops = {"GlobalMaxPool"};
  def.infer = infer_global_pool;
  def.compute = [](KernelContext& context) {
    reduce_planes(context, [](std::span<const float> plane) {
      float best = -std::numeric_limits<float>::infinity();
      for (float v : plane) best = std::max(best, v);
      return best;
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
