// LRN: local response normalization across channels,
// y = x / (bias + alpha / size * sum of x^2 over `size` neighbouring channels)^beta.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_lrn(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  PET_REFUSE_UNLESS(context, x.dtype == DType::f32, "expects a float32 input, got " + x.to_string());
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 3,
                    "expects an input of shape [N, C, spatial...], got " + x.shape.to_string());
  PET_REFUSE_UNLESS(context, context.attrs.get_int("size") >= 1,
                    fmt::format("size must be at least 1, got {}", context.attrs.get_int("size")));
  return {x};
}

static void compute_lrn(KernelContext& context) {
  const Tensor& x = context.input(0);
  int64_t batch = x.shape()[0], channels = x.shape()[1];
  int64_t spatial = batch * channels == 0 ? 0 : x.numel() / (batch * channels);
  int64_t size = context.attrs.get_int("size");
  int64_t before = (size - 1) / 2, after = size - 1 - before;  // floor and ceil of (size - 1) / 2
  double scale = context.attrs.get_float("alpha") / static_cast<double>(size);
  double bias = context.attrs.get_float("bias"), beta = context.attrs.get_float("beta");
  const float* in = x.f32().data();
  float* out = context.outputs[0].mutable_f32().data();
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t s = 0; s < spatial; ++s) {
        double squares = 0;
        for (int64_t k = std::max<int64_t>(0, c - before); k <= std::min(channels - 1, c + after); ++k) {
          double value = in[(n * channels + k) * spatial + s];
          squares += value * value;
        }
        int64_t at = (n * channels + c) * spatial + s;
        out[at] = static_cast<float>(in[at] / std::pow(bias + scale * squares, beta));
      }
}

OpDef make_LRN() {
  OpDef def;
  def.name = "LRN";
  def.onnx_ops = {"LRN"};
  def.attrs = {attr_float("alpha", 1e-4), attr_float("beta", 0.75), attr_float("bias", 1.0), attr_int("size")};
  def.infer = infer_lrn;
  def.compute = compute_lrn;
  def.cost = [](const CostContext& context) {
    auto size = static_cast<double>(context.attrs.get_int("size"));
    return elementwise_cost(context, 2.0 * size + 6.0);
  };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return with_bfloat16_through_float(std::move(def));
}

}  // namespace pet::ops
