// BatchNormalization in inference form: y = (x - mean) / sqrt(var + epsilon) * scale + bias per
// channel (axis 1). Training mode, per-activation (spatial = 0) statistics and the running-stat
// outputs are rejected at import.
#include <cmath>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static const char* const kParameterNames[] = {"x", "scale", "bias", "mean", "var"};

static ShapeResult infer_batch_normalization(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 2, "x must have rank >= 2 (batch, channels, ...), got " + x.to_string());
  for (int i = 0; i < 5; ++i)
    PET_REFUSE_UNLESS(context, context.input(i).dtype == DType::f32,
                      fmt::format("{} must be float32, got {}", kParameterNames[i], context.input(i).to_string()));
  Shape channels{x.shape[1]};
  for (int i = 1; i < 5; ++i)
    PET_REFUSE_UNLESS(context, context.input(i).shape == channels,
                      fmt::format("{} must have shape {} (one value per channel), got {}", kParameterNames[i],
                                  channels.to_string(), context.input(i).shape.to_string()));
  return {x};
}

static void compute_batch_normalization(KernelContext& context) {
  const Tensor& x = context.input(0);
  auto scale = context.input(1).f32(), bias = context.input(2).f32();
  auto mean = context.input(3).f32(), variance = context.input(4).f32();
  double epsilon = context.attrs.get_float("epsilon");
  int64_t batch = x.shape()[0], channels = x.shape()[1];
  int64_t plane = channels == 0 || batch == 0 ? 0 : x.numel() / (batch * channels);
  const float* src = x.f32().data();
  float* dst = context.outputs[0].mutable_f32().data();
  for (int64_t c = 0; c < channels; ++c) {
    auto at = static_cast<size_t>(c);
    auto gain = static_cast<float>(scale[at] / std::sqrt(static_cast<double>(variance[at]) + epsilon));
    float shift = bias[at] - mean[at] * gain;
    for (int64_t n = 0; n < batch; ++n) {
      int64_t start = (n * channels + c) * plane;
      for (int64_t k = start; k < start + plane; ++k) dst[k] = src[k] * gain + shift;
    }
  }
}

static OnnxImported import_batch_normalization(const OpDef& def, const OnnxImportNode& node) {
  std::vector<std::string> known{"epsilon", "momentum"};  // momentum only matters in training
  if (node.opset() < 7) known.push_back("is_test");
  if (node.opset() < 9) known.push_back("spatial");
  if (node.opset() >= 14) known.push_back("training_mode");
  reject_unknown_attrs(node, known);
  if (node.opset() < 7 && node.attr_int("is_test", 0) == 0) node.unsupported("is_test=0 (training)");
  if (node.attr_int("spatial", 1) != 1) node.unsupported("spatial=0 (per-activation statistics)");
  if (node.attr_int("training_mode", 0) != 0) node.unsupported("training_mode=1 (training)");
  if (node.num_outputs() > 1) node.unsupported("the running mean/variance outputs (training)");
  return {def.name, {{"epsilon", node.attr_float("epsilon", 1e-5)}}, {0, 1, 2, 3, 4}};
}

OpDef make_BatchNormalization() {
  OpDef def;
  def.name = "BatchNormalization";
  def.onnx_ops = {"BatchNormalization"};
  def.attrs = {attr_float("epsilon", 1e-5)};
  def.min_inputs = def.max_inputs = 5;
  def.infer = infer_batch_normalization;
  def.compute = compute_batch_normalization;
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 2.0); };
  def.from_onnx = import_batch_normalization;
  def.to_onnx = export_same_name;
  return with_bfloat16_through_float(std::move(def), /*mixed_float_inputs=*/true);
}

}  // namespace pet::ops
