// AveragePool: N-D mean over sliding windows, padding counted or not (count_include_pad).
#include <fmt/format.h>

#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/pooling.h"

namespace pet::ops {
namespace {

void compute_average_pool(KernelContext& context) {
  const Tensor& x = context.input(0);
  WindowGeometry geometry = pool_geometry(x.shape(), context.attrs);
  PoolWindows windows(geometry, context.attrs.get_ints("pads"));
  bool include_pad = context.attrs.get_int("count_include_pad") != 0;
  int64_t planes = x.shape()[0] * x.shape()[1];
  int64_t in_size = geometry.input_size(), out_size = geometry.output_size();
  const float* in = x.f32().data();
  float* out = context.outputs[0].mutable_f32().data();
  for (int64_t p = 0; p < planes; ++p) {
    const float* plane = in + p * in_size;
    float* result = out + p * out_size;
    windows.for_each([&](int64_t index, std::span<const int64_t> taps, int64_t padded) {
      float sum = 0.0f;
      for (int64_t tap : taps) sum += plane[tap];
      auto divisor = include_pad ? padded : static_cast<int64_t>(taps.size());
      result[index] = divisor > 0 ? sum / static_cast<float>(divisor) : 0.0f;
    });
  }
}

OnnxImported import_average_pool(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node,
                       {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"});
  OnnxImported result{def.name, import_pool_window(node, false), {0}};
  result.attrs.set("count_include_pad", node.attr_int("count_include_pad", 0));
  return result;
}

// ceil_mode exists from opset 10 on.
void export_average_pool(const Node& node, OnnxExportNode& out) {
  Attributes attrs = node.attrs;
  if (out.opset() < 10) {
    if (attrs.get_int("ceil_mode") != 0)
      throw UserError(
          fmt::format("node '{}' (AveragePool): ceil_mode needs opset 10 or later, exporting at opset "
                      "{}; export at a newer opset",
                      node.name, out.opset()));
    attrs.erase("ceil_mode");
  }
  out.add_node("AveragePool", {out.input(0)}, {out.output(0)}, attrs);
}

}  // namespace

namespace {

// Window taps of one output coordinate along one axis: inside the input, and inside the
// padded extent (what count_include_pad divides by).
struct AxisTaps {
  int64_t first, inside, padded;
};

AxisTaps axis_taps(int64_t o, int64_t stride, int64_t pad_begin, int64_t pad_end, int64_t kernel, int64_t size) {
  AxisTaps taps{o * stride - pad_begin, 0, 0};
  for (int64_t k = 0; k < kernel; ++k) {
    int64_t i = taps.first + k;
    taps.inside += i >= 0 && i < size;
    taps.padded += i >= -pad_begin && i < size + pad_end;
  }
  return taps;
}

uint64_t average_pool_point(const PointContext& context) {
  const Shape& x = context.input(0).shape;
  const auto& kernel = context.attrs.get_ints("kernel_shape");
  const auto& strides = context.attrs.get_ints("strides");
  const auto& pads = context.attrs.get_ints("pads");
  int spatial = x.rank() - 2;
  int64_t inside = 1, padded = 1, window = 1;
  std::vector<AxisTaps> taps;
  for (int s = 0; s < spatial; ++s) {
    auto u = static_cast<size_t>(s);
    taps.push_back(axis_taps(context.index[s + 2], strides[u], pads[u], pads[u + static_cast<size_t>(spatial)],
                             kernel[u], x[s + 2]));
    inside *= taps.back().inside;
    padded *= taps.back().padded;
    window *= kernel[u];
  }
  int64_t index[kMaxRank] = {context.index[0], context.index[1]};
  uint64_t total = 0;
  for (int64_t k = 0; k < window; ++k) {
    int64_t rest = k;
    bool in_range = true;
    for (int s = spatial - 1; s >= 0; --s) {
      auto u = static_cast<size_t>(s);
      index[s + 2] = taps[u].first + rest % kernel[u];
      rest /= kernel[u];
      in_range = in_range && index[s + 2] >= 0 && index[s + 2] < x[s + 2];
    }
    if (in_range) total = field::add(total, context.pull(0, index));
  }
  int64_t divisor = context.attrs.get_int("count_include_pad") != 0 ? padded : inside;
  return divisor == 0 ? 0 : field::mul(total, field::inverse(field::from_int(divisor)));
}

// Windowed cuts, and every position whose window leaves the input is a box of its own (its
// divisor depends on how far it leaves).
BoxGrid average_pool_boxes(const BoxContext& context) {
  const Shape& x = context.input(0).shape;
  const Shape& out = context.output.shape;
  const auto& kernel = context.attrs.get_ints("kernel_shape");
  const auto& strides = context.attrs.get_ints("strides");
  const auto& pads = context.attrs.get_ints("pads");
  std::vector<std::vector<int64_t>> cuts = {context.grid(0).cuts(0), context.grid(0).cuts(1)};
  for (int s = 0; s < x.rank() - 2; ++s) {
    auto u = static_cast<size_t>(s);
    std::vector<int64_t> axis = window_cuts(out[s + 2], context.grid(0).cuts(s + 2), strides[u], pads[u], 1, kernel[u]);
    for (int64_t o = 0; o < out[s + 2]; ++o) {
      int64_t first = o * strides[u] - pads[u];
      if (first < 0 || first + kernel[u] > x[s + 2]) {
        axis.push_back(o);
        axis.push_back(o + 1);
      }
    }
    cuts.push_back(normalize_cuts(axis, out[s + 2]));
  }
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_AveragePool() {
  OpDef def;
  def.name = "AveragePool";
  def.onnx_ops = {"AveragePool"};
  def.attrs = {attr_ints("kernel_shape"), attr_ints("strides"), attr_ints("pads"), attr_int("ceil_mode", 0),
               attr_int("count_include_pad", 0)};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = [](const ShapeContext& context) -> ShapeResult {
    int64_t include = context.attrs.get_int("count_include_pad");
    PET_REFUSE_UNLESS(context, include == 0 || include == 1,
                      fmt::format("count_include_pad {} must be 0 or 1", include));
    return infer_pool(context, false);
  };
  def.compute = compute_average_pool;
  def.cost = pool_cost;
  def.from_onnx = import_average_pool;
  def.to_onnx = export_average_pool;
  def.eval_point = average_pool_point;
  def.propagate_boxes = average_pool_boxes;
  return def;
}

}  // namespace pet::ops
