// Pool import, shape rule, cost and per-axis window tables shared by MaxPool and AveragePool.
#include "core/ops/pooling.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/ops/global_pooling.h"

namespace pet::ops {

Attributes import_pool_window(const OnnxImportNode& node, bool with_dilations) {
  std::vector<int64_t> input = import_spatial_extents(node, 0);
  int rank = static_cast<int>(input.size());
  std::vector<int64_t> kernel = node.attr_ints("kernel_shape");
  if (static_cast<int>(kernel.size()) != rank)
    node.fail(fmt::format("kernel_shape has {} entries but the input has {} spatial dims", kernel.size(), rank),
              "give one kernel extent per spatial dim");
  std::vector<int64_t> strides = import_spatial_ints(node, "strides", rank, 1);
  std::vector<int64_t> dilations = import_spatial_ints(node, "dilations", rank, 1);
  if (!with_dilations && dilations != std::vector<int64_t>(static_cast<size_t>(rank), 1))
    node.unsupported("dilations other than 1");
  Attributes attrs;
  attrs.set("kernel_shape", kernel);
  attrs.set("strides", strides);
  attrs.set("pads", import_window_pads(node, input, kernel, strides, dilations));
  attrs.set("ceil_mode", node.attr_int("ceil_mode", 0));
  if (with_dilations) attrs.set("dilations", dilations);
  return attrs;
}

WindowGeometry pool_geometry(const Shape& input, const Attributes& attrs) {
  return make_window_geometry(input.dims(), attrs.get_ints("kernel_shape"), attrs, attrs.get_int("ceil_mode") != 0);
}

ShapeResult infer_pool(const ShapeContext& context, bool with_dilations, DTypeSet types) {
  PET_TRY(check_pool_input(context, types));
  const TensorType& x = context.input(0);
  int rank = x.shape.rank() - 2;
  const std::vector<int64_t>& kernel = context.attrs.get_ints("kernel_shape");
  PET_REFUSE_UNLESS(
      context, static_cast<int>(kernel.size()) == rank,
      fmt::format("kernel_shape has {} entries, expected {} for {} spatial dims", kernel.size(), rank, rank));
  for (int64_t k : kernel) PET_REFUSE_UNLESS(context, k >= 1, "kernel_shape entries must be >= 1");
  PET_TRY(check_window_attrs(context, rank, with_dilations));
  int64_t ceil_mode = context.attrs.get_int("ceil_mode");
  PET_REFUSE_UNLESS(context, ceil_mode == 0 || ceil_mode == 1, fmt::format("ceil_mode {} must be 0 or 1", ceil_mode));
  WindowGeometry geometry = pool_geometry(x.shape, context.attrs);
  for (int64_t extent : geometry.output)
    PET_REFUSE_UNLESS(context, extent >= 1,
                      fmt::format("kernel {} does not fit input {} with the given pads", Shape(kernel).to_string(),
                                  x.shape.to_string()));
  std::vector<int64_t> dims = {x.shape[0], x.shape[1]};
  dims.insert(dims.end(), geometry.output.begin(), geometry.output.end());
  return {{x.dtype, Shape(dims)}};
}

Cost pool_cost(const CostContext& context) {
  double taps = 1;
  for (int64_t k : context.attrs.get_ints("kernel_shape")) taps *= static_cast<double>(k);
  return {static_cast<double>(context.outputs[0].shape.numel()) * taps, context.input_bytes() + context.output_bytes()};
}

static int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

PoolWindows::PoolWindows(const WindowGeometry& g, const std::vector<int64_t>& pads) : output_(g.output) {
  int rank = g.rank();
  output_size_ = g.output_size();
  input_strides_.assign(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d)
    input_strides_[static_cast<size_t>(d)] =
        input_strides_[static_cast<size_t>(d + 1)] * g.input[static_cast<size_t>(d + 1)];
  for (int d = 0; d < rank; ++d) {
    auto i = static_cast<size_t>(d);
    int64_t dilation = g.dilations[i], kernel = g.kernel[i], input = g.input[i];
    steps_.push_back(dilation * input_strides_[i]);
    std::vector<AxisWindow> windows;
    for (int64_t o = 0; o < g.output[i]; ++o) {
      int64_t start = o * g.strides[i] - g.pads_begin[i];
      int64_t low = start >= 0 ? 0 : ceil_div(-start, dilation);
      int64_t high = std::min(kernel, ceil_div(input - start, dilation));
      AxisWindow window;
      window.count = std::max<int64_t>(0, high - low);
      window.first = start + low * dilation;
      window.padded = std::min(kernel, ceil_div(input + pads[i + static_cast<size_t>(rank)] - start, dilation));
      windows.push_back(window);
    }
    axes_.push_back(std::move(windows));
  }
}

void PoolWindows::gather_taps(const std::vector<int64_t>& coordinate, std::vector<int64_t>& taps) const {
  taps.assign(1, 0);
  for (size_t d = 0; d < axes_.size(); ++d) {
    const AxisWindow& window = axes_[d][static_cast<size_t>(coordinate[d])];
    auto count = static_cast<size_t>(window.count);
    size_t existing = taps.size();
    taps.resize(existing * count);
    if (count == 0) return;
    int64_t first = window.first * input_strides_[d];
    for (size_t i = existing; i-- > 0;) {  // back to front, so the expansion can work in place
      int64_t base = taps[i] + first;
      for (size_t j = count; j-- > 0;) taps[i * count + j] = base + static_cast<int64_t>(j) * steps_[d];
    }
  }
}

int64_t PoolWindows::padded_count(const std::vector<int64_t>& coordinate) const {
  int64_t count = 1;
  for (size_t d = 0; d < axes_.size(); ++d) count *= axes_[d][static_cast<size_t>(coordinate[d])].padded;
  return count;
}

void PoolWindows::advance(std::vector<int64_t>& coordinate) const {
  for (size_t d = coordinate.size(); d-- > 0;) {
    if (++coordinate[d] < output_[d]) return;
    coordinate[d] = 0;
  }
}

}  // namespace pet::ops
