// InstanceNormalization: normalize each channel of each sample over its spatial axes, then
// scale and shift per channel.
#include <fmt/format.h>

#include "core/ops/op_util.h"
#include "core/ops/row_normalization.h"

namespace pet::ops {

static ShapeResult infer_instance_normalization(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  for (int i = 0; i < 3; ++i)
    PET_REFUSE_UNLESS(context, context.input(i).dtype == DType::f32,
                      fmt::format("input {} must be float32, got {}", i, context.input(i).to_string()));
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 3,
                    "expects an input of shape [N, C, spatial...], got " + x.shape.to_string());
  for (int i = 1; i < 3; ++i)
    PET_REFUSE_UNLESS(context, context.input(i).shape == Shape{x.shape[1]},
                      fmt::format("{} must have shape {} (one value per channel), got {}", i == 1 ? "scale" : "B",
                                  Shape{x.shape[1]}.to_string(), context.input(i).shape.to_string()));
  return {x};
}

static void compute_instance_normalization(KernelContext& context) {
  const Tensor& x = context.input(0);
  int64_t channels = x.shape()[1];
  int64_t rows = x.shape()[0] * channels;
  int64_t width = rows == 0 ? 0 : x.numel() / rows;
  float* out = context.outputs[0].mutable_f32().data();
  normalize_rows(x.f32().data(), out, rows, width, context.attrs.get_float("epsilon"));
  auto scale = context.input(1).f32();
  auto bias = context.input(2).f32();
  for (int64_t r = 0; r < rows; ++r) {
    auto channel = static_cast<size_t>(r % channels);
    for (int64_t k = 0; k < width; ++k) out[r * width + k] = out[r * width + k] * scale[channel] + bias[channel];
  }
}

OpDef make_InstanceNormalization() {
  OpDef def;
  def.name = "InstanceNormalization";
  def.onnx_ops = {"InstanceNormalization"};
  def.attrs = {attr_float("epsilon", 1e-5)};
  def.min_inputs = def.max_inputs = 3;
  def.infer = infer_instance_normalization;
  def.compute = compute_instance_normalization;
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 8.0); };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
