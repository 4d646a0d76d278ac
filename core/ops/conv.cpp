// Conv: N-D grouped convolution with optional bias, run as im2col + sgemm per group.
#include <fmt/format.h>

#include <algorithm>

#include "core/ops/fused_activation.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/gemm.h"
#include "core/ops/im2col.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/window_geometry.h"

namespace pet::ops {
namespace {

std::vector<int64_t> kernel_of(const Shape& weight) { return {weight.dims().begin() + 2, weight.dims().end()}; }

// Conv's channel rules: weight [filters, channels / group, kernel...].
ShapeCheck check_inputs(const ShapeContext& context) {
  return check_conv_inputs(context, [&](int64_t group) -> Refusable<int64_t> {
    const Shape& x = context.input(0).shape;
    const Shape& w = context.input(1).shape;
    PET_REFUSE_UNLESS(context, w[0] % group == 0,
                      fmt::format("{} output channels (weight dim 0) are not divisible by group {}", w[0], group));
    PET_REFUSE_UNLESS(context, x[1] == w[1] * group,
                      fmt::format("input has {} channels, but weight {} with group {} expects {}", x[1], w.to_string(),
                                  group, w[1] * group));
    return w[0];
  });
}

ShapeResult infer_conv(const ShapeContext& context) {
  PET_TRY(check_inputs(context));
  const Shape& x = context.input(0).shape;
  const Shape& w = context.input(1).shape;
  PET_TRY(check_window_attrs(context, x.rank() - 2, true));
  WindowGeometry geometry = make_window_geometry(x.dims(), kernel_of(w), context.attrs);
  for (int64_t extent : geometry.output)
    PET_REFUSE_UNLESS(context, extent >= 1,
                      fmt::format("kernel {} (dilated) does not fit input {} with the given pads",
                                  Shape(geometry.kernel).to_string(), x.to_string()));
  std::vector<int64_t> dims = {x[0], w[0]};
  dims.insert(dims.end(), geometry.output.begin(), geometry.output.end());
  return {{DType::f32, Shape(dims)}};
}

bool is_pointwise(const WindowGeometry& g) {
  for (int d = 0; d < g.rank(); ++d) {
    auto i = static_cast<size_t>(d);
    if (g.kernel[i] != 1 || g.strides[i] != 1 || g.pads_begin[i] != 0 || g.input[i] != g.output[i]) return false;
  }
  return true;
}

void fill_bias(KernelContext& context, int64_t batch, int64_t filters, int64_t plane) {
  if (!context.has_input(2)) return;
  auto bias = context.input(2).f32();
  float* y = context.outputs[0].mutable_f32().data();
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t f = 0; f < filters; ++f)
      std::fill(y + (n * filters + f) * plane, y + (n * filters + f + 1) * plane, bias[static_cast<size_t>(f)]);
}

void compute_conv(KernelContext& context) {
  const Tensor& x = context.input(0);
  const Tensor& w = context.input(1);
  int64_t batch = x.shape()[0], channels = x.shape()[1], filters = w.shape()[0];
  int64_t group = context.attrs.get_int("group");
  WindowGeometry g = make_window_geometry(x.shape().dims(), kernel_of(w.shape()), context.attrs);
  int64_t in_size = g.input_size(), out_size = g.output_size();
  int64_t group_channels = channels / group, group_filters = filters / group;
  int64_t rows = group_channels * g.kernel_size();  // the GEMM's reduction length
  fill_bias(context, batch, filters, out_size);
  float beta = context.has_input(2) ? 1.0f : 0.0f;
  const float* x_data = x.f32().data();
  const float* w_data = w.f32().data();
  float* y_data = context.outputs[0].mutable_f32().data();
  bool pointwise = is_pointwise(g);
  int64_t chunk = pointwise ? out_size : column_chunk(g, rows, kColumnBudget);
  std::vector<float> columns(pointwise ? 0 : static_cast<size_t>(rows * chunk));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t k = 0; k < group; ++k) {
      const float* image = x_data + (n * channels + k * group_channels) * in_size;
      const float* weight = w_data + k * group_filters * rows;
      float* out = y_data + (n * filters + k * group_filters) * out_size;
      if (pointwise) {
        sgemm(false, false, group_filters, out_size, rows, 1.0f, weight, rows, image, in_size, beta, out, out_size);
        continue;
      }
      for (int64_t first = 0; first < out_size; first += chunk) {
        int64_t count = std::min(chunk, out_size - first);
        im2col(image, group_channels, g, first, count, columns.data());
        sgemm(false, false, group_filters, count, rows, 1.0f, weight, rows, columns.data(), count, beta, out + first,
              out_size);
      }
    }
  }
}

Cost conv_cost(const CostContext& context) {
  const Shape& w = context.input(1).shape;
  const Shape& y = context.outputs[0].shape;
  // Every output element is a dot product of length C/group * prod(kernel) = prod(weight dims 1..).
  double reduction = static_cast<double>(w.numel() / std::max<int64_t>(1, w[0]));
  return {2.0 * static_cast<double>(y.numel()) * reduction, context.input_bytes() + context.output_bytes()};
}

OnnxImported import_conv(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  std::vector<int64_t> input = import_spatial_extents(node, 0);
  int rank = static_cast<int>(input.size());
  const Shape& weight = node.input_type(1).shape;
  if (weight.rank() != rank + 2)
    node.fail(fmt::format("weight shape {} does not match input rank {}", weight.to_string(), rank + 2),
              "give the weight as [filters, channels / group, kernel...]");
  std::vector<int64_t> kernel = kernel_of(weight);
  if (node.has_attr("kernel_shape") && node.attr_ints("kernel_shape") != kernel)
    node.fail("kernel_shape does not match the weight shape " + weight.to_string(),
              "drop kernel_shape or make it match the weight");
  OnnxImported result{def.name, {}, {0, 1}};
  std::vector<int64_t> strides = import_spatial_ints(node, "strides", rank, 1);
  std::vector<int64_t> dilations = import_spatial_ints(node, "dilations", rank, 1);
  result.attrs.set("pads", import_window_pads(node, input, kernel, strides, dilations));
  result.attrs.set("strides", strides);
  result.attrs.set("dilations", dilations);
  result.attrs.set("group", node.attr_int("group", 1));
  if (node.num_inputs() > 2 && node.has_input(2)) result.inputs.push_back(2);
  return result;
}

}  // namespace

namespace {

// Sum over one group's input channels and the kernel window; padding reads as zero. Each tap
// inside the input reads the group's channels as one run of x and one of w (in chunks, so the
// buffers stay on the stack of a recursive pull).
uint64_t conv_point(const PointContext& context) {
  const Shape& x = context.input(0).shape;
  const Shape& w = context.input(1).shape;
  const auto& strides = context.attrs.get_ints("strides");
  const auto& pads = context.attrs.get_ints("pads");
  const auto& dilations = context.attrs.get_ints("dilations");
  int spatial = x.rank() - 2;
  int64_t group_in = w[1], group_out = w[0] / context.attrs.get_int("group");
  int64_t n = context.index[0], f = context.index[1], first_channel = (f / group_out) * group_in;
  int64_t kernel_count = 1;
  for (int s = 0; s < spatial; ++s) kernel_count *= w[s + 2];
  constexpr int64_t kChunk = 128;
  uint64_t x_run[kChunk], w_run[kChunk];
  int64_t x_index[kMaxRank] = {n}, w_index[kMaxRank] = {f};
  uint64_t total = 0;
  for (int64_t k = 0; k < kernel_count; ++k) {
    int64_t rest = k;
    bool inside = true;
    for (int s = spatial - 1; s >= 0; --s) {
      auto u = static_cast<size_t>(s);
      int64_t offset = rest % w[s + 2];
      rest /= w[s + 2];
      w_index[s + 2] = offset;
      x_index[s + 2] = context.index[s + 2] * strides[u] - pads[u] + offset * dilations[u];
      inside = inside && x_index[s + 2] >= 0 && x_index[s + 2] < x[s + 2];
    }
    if (!inside) continue;
    for (int64_t c = 0; c < group_in; c += kChunk) {
      int64_t count = std::min(kChunk, group_in - c);
      x_index[1] = first_channel + c;
      w_index[1] = c;
      context.pull_run(0, x_index, 1, count, x_run);
      context.pull_run(1, w_index, 1, count, w_run);
      total = field::add(total, field::dot(x_run, w_run, count));
    }
  }
  if (context.has_input(2)) {
    int64_t bias_index[1] = {f};
    total = field::add(total, context.pull(2, bias_index));
  }
  return total;
}

// Batch cuts from the input, output-channel cuts from the weight (and bias), spatial cuts where
// the window meets padding or an input cut at a new offset. Group boundaries are cuts when a
// group's input channels are not one uniform box.
BoxGrid conv_boxes(const BoxContext& context) {
  const Shape& x = context.input(0).shape;
  const Shape& w = context.input(1).shape;
  const Shape& out = context.output.shape;
  const auto& strides = context.attrs.get_ints("strides");
  const auto& pads = context.attrs.get_ints("pads");
  const auto& dilations = context.attrs.get_ints("dilations");
  int64_t group = context.attrs.get_int("group");
  std::vector<std::vector<int64_t>> cuts = {context.grid(0).cuts(0)};
  std::vector<int64_t> channel_points = context.grid(1).cuts(0);
  if (context.has_input(2)) {
    const auto& bias = context.grid(2).cuts(0);
    channel_points.insert(channel_points.end(), bias.begin(), bias.end());
  }
  bool uneven_channels = context.grid(0).cuts(1).size() > 2 || context.grid(1).cuts(1).size() > 2;
  if (group > 1 && uneven_channels)
    for (int64_t g = 0; g <= group; ++g) channel_points.push_back(g * (w[0] / group));
  cuts.push_back(normalize_cuts(channel_points, out[1]));
  for (int s = 0; s < x.rank() - 2; ++s) {
    auto u = static_cast<size_t>(s);
    cuts.push_back(window_cuts(out[s + 2], context.grid(0).cuts(s + 2), strides[u], pads[u], dilations[u], w[s + 2]));
  }
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_Conv() {
  OpDef def;
  def.name = "Conv";
  def.onnx_ops = {"Conv"};
  def.attrs = {attr_ints("strides"), attr_ints("pads"), attr_ints("dilations"), attr_int("group", 1)};
  def.min_inputs = 2;
  def.max_inputs = 3;
  // Linear in the input and in the weight separately. With a bias (input 2) it is affine, not
  // linear: users of these traits must treat a biased Conv as Conv + Add.
  def.traits.linearity = Linearity::Multilinear;
  def.traits.linear_inputs = {0, 1};
  def.traits.compute_heavy = true;
  def.infer = infer_conv;
  def.compute = compute_conv;
  def.cost = conv_cost;
  def.from_onnx = import_conv;
  def.to_onnx = export_same_name;
  def.eval_point = conv_point;
  def.propagate_boxes = conv_boxes;
  return with_fused_activation(std::move(def));  // activation="relu" after finalize
}

}  // namespace pet::ops
