// GlobalAveragePool: the mean of each [n, c] plane over all spatial dims.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/global_pooling.h"
#include "core/ops/op_util.h"

namespace pet::ops {

namespace {

uint64_t global_average_pool_point(const PointContext& context) {
  const Shape& x = context.input(0).shape;
  Shape spatial(std::vector<int64_t>(x.dims().begin() + 2, x.dims().end()));
  int64_t index[kMaxRank] = {context.index[0], context.index[1]};
  uint64_t total = 0;
  for (int64_t flat = 0, end = spatial.numel(); flat < end; ++flat) {
    unravel_index(flat, spatial, index + 2);
    total = field::add(total, context.pull(0, index));
  }
  return field::mul(total, field::inverse(field::from_int(spatial.numel())));
}

BoxGrid global_average_pool_boxes(const BoxContext& context) {
  std::vector<std::vector<int64_t>> cuts = {context.grid(0).cuts(0), context.grid(0).cuts(1)};
  for (int s = 2; s < context.output.shape.rank(); ++s) cuts.push_back({0, 1});
  return BoxGrid(std::move(cuts));
}

}  // namespace

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
  def.eval_point = global_average_pool_point;
  def.propagate_boxes = global_average_pool_boxes;
  return def;
}

}  // namespace pet::ops
