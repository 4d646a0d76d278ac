// MeanVarianceNormalization: (x - mean) / (stddev + 1e-9) with mean and (population) variance
// taken over the listed axes. Canonical `axes` are normalized and sorted at import.
#include <algorithm>
#include <cmath>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

// ONNX's function body adds this to the standard deviation (not to the variance).
constexpr double kStddevEpsilon = 1e-9;

static ShapeResult infer_mean_variance_normalization(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  PET_REFUSE_UNLESS(context, x.dtype == DType::f32, "expects a float32 input, got " + x.to_string());
  std::vector<int> axes;
  for (int64_t axis : context.attrs.get_ints("axes")) {
    PET_TRY_ASSIGN(int normalized, axis_or_refuse(context, axis, x.shape.rank(), "axis"));
    axes.push_back(normalized);
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return context.refuse("axes " + ints_to_string(context.attrs.get_ints("axes")) + " repeat an axis");
  return {x};
}

// Per-slot sums of f(x) over the elements `slots` maps to each slot.
template <typename Fn>
static std::vector<double> slot_sums(std::span<const float> values, const BroadcastIndex& slots, size_t count,
                                     const Fn& fn) {
  std::vector<double> sums(count, 0.0);
  BroadcastIndex::Cursor slot = slots.cursor();
  for (size_t i = 0; i < values.size(); ++i) sums[slot.next()] += fn(values[i], i);
  return sums;
}

static void compute_mean_variance_normalization(KernelContext& context) {
  const Tensor& x = context.input(0);
  Shape kept = x.shape();
  for (int64_t axis : context.attrs.get_ints("axes")) kept[normalize_axis(axis, x.shape().rank())] = 1;
  BroadcastIndex slots(kept, x.shape());
  auto slot = [&](size_t i) { return static_cast<size_t>(slots.offset(static_cast<int64_t>(i))); };
  auto count = static_cast<size_t>(kept.numel());
  double per_slot = count == 0 ? 1.0 : static_cast<double>(x.numel()) / static_cast<double>(count);
  auto values = x.f32();
  std::vector<double> means = slot_sums(values, slots, count, [](float v, size_t) { return v; });
  for (double& mean : means) mean /= per_slot;
  std::vector<double> variances = slot_sums(values, slots, count, [&](float v, size_t i) {
    return (v - means[slot(i)]) * (v - means[slot(i)]);
  });
  auto out = context.outputs[0].mutable_f32();
  for (size_t i = 0; i < values.size(); ++i) {
    double stddev = std::sqrt(variances[slot(i)] / per_slot);
    out[i] = static_cast<float>((values[i] - means[slot(i)]) / (stddev + kStddevEpsilon));
  }
}

static OnnxImported import_mean_variance_normalization(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axes"});
  std::vector<int64_t> axes = node.attr_ints("axes", std::vector<int64_t>{0, 2, 3});
  return {def.name, {{"axes", import_axes(node, axes, node.input_type(0).shape.rank())}}, {0}};
}

OpDef make_MeanVarianceNormalization() {
  OpDef def;
  def.name = "MeanVarianceNormalization";
  def.onnx_ops = {"MeanVarianceNormalization"};
  def.attrs = {attr_ints("axes", std::vector<int64_t>{0, 2, 3})};
  def.infer = infer_mean_variance_normalization;
  def.compute = compute_mean_variance_normalization;
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 7.0); };
  def.from_onnx = import_mean_variance_normalization;
  def.to_onnx = export_same_name;
  return with_bfloat16_through_float(std::move(def));
}

}  // namespace pet::ops
