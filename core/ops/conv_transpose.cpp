// ConvTranspose: the adjoint of a grouped N-D Conv, run as sgemm + col2im per group.
#include <fmt/format.h>

#include "core/gemm.h"
#include "core/ops/im2col.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/window_geometry.h"

namespace pet::ops {
namespace {

std::vector<int64_t> kernel_of(const Shape& weight) { return {weight.dims().begin() + 2, weight.dims().end()}; }

// The geometry of the forward Conv whose adjoint this is: its image is our output and its
// output positions are our input positions.
WindowGeometry adjoint_geometry(const Shape& x, const Shape& w, const Attributes& attrs) {
  WindowGeometry g;
  int rank = x.rank() - 2;
  auto r = static_cast<size_t>(rank);
  g.output.assign(x.dims().begin() + 2, x.dims().end());
  g.kernel = kernel_of(w);
  g.strides = attrs.get_ints("strides");
  g.dilations = attrs.get_ints("dilations");
  const std::vector<int64_t>& pads = attrs.get_ints("pads");
  const std::vector<int64_t>& output_padding = attrs.get_ints("output_padding");
  g.pads_begin.assign(pads.begin(), pads.begin() + rank);
  for (size_t d = 0; d < r; ++d)
    g.input.push_back(g.strides[d] * (g.output[d] - 1) + output_padding[d] +
                      dilated_extent(g.kernel[d], g.dilations[d]) - pads[d] - pads[d + r]);
  return g;
}

// ConvTranspose's channel rules: weight [channels, filters / group, kernel...].
ShapeCheck check_inputs(const ShapeContext& context) {
  return check_conv_inputs(context, [&](int64_t group) -> Refusable<int64_t> {
    const Shape& x = context.input(0).shape;
    const Shape& w = context.input(1).shape;
    PET_REFUSE_UNLESS(
        context, x[1] == w[0],
        fmt::format("input has {} channels, but weight {} expects {} (weight dim 0)", x[1], w.to_string(), w[0]));
    PET_REFUSE_UNLESS(context, x[1] % group == 0,
                      fmt::format("{} input channels are not divisible by group {}", x[1], group));
    return w[1] * group;
  });
}

ShapeResult infer_conv_transpose(const ShapeContext& context) {
  PET_TRY(check_inputs(context));
  const Shape& x = context.input(0).shape;
  const Shape& w = context.input(1).shape;
  int rank = x.rank() - 2;
  PET_TRY(check_window_attrs(context, rank, true));
  const std::vector<int64_t>& output_padding = context.attrs.get_ints("output_padding");
  PET_REFUSE_UNLESS(context, static_cast<int>(output_padding.size()) == rank,
                    fmt::format("output_padding has {} entries, expected {}", output_padding.size(), rank));
  for (int64_t p : output_padding) PET_REFUSE_UNLESS(context, p >= 0, "output_padding entries must be >= 0");
  WindowGeometry g = adjoint_geometry(x, w, context.attrs);
  for (int64_t extent : g.input)
    PET_REFUSE_UNLESS(
        context, extent >= 1,
        fmt::format("pads leave an empty output for input {} and weight {}", x.to_string(), w.to_string()));
  std::vector<int64_t> dims = {x[0], w[1] * context.attrs.get_int("group")};
  dims.insert(dims.end(), g.input.begin(), g.input.end());
  return {{DType::f32, Shape(dims)}};
}

void add_bias(KernelContext& context, int64_t batch, int64_t filters, int64_t plane) {
  if (!context.has_input(2)) return;
  auto bias = context.input(2).f32();
  float* y = context.outputs[0].mutable_f32().data();
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t f = 0; f < filters; ++f) {
      float* channel = y + (n * filters + f) * plane;
      for (int64_t i = 0; i < plane; ++i) channel[i] += bias[static_cast<size_t>(f)];
    }
}

void compute_conv_transpose(KernelContext& context) {
  const Tensor& x = context.input(0);
  const Tensor& w = context.input(1);
  int64_t group = context.attrs.get_int("group");
  int64_t batch = x.shape()[0], channels = x.shape()[1];
  int64_t group_channels = channels / group, group_filters = w.shape()[1], filters = group_filters * group;
  WindowGeometry g = adjoint_geometry(x.shape(), w.shape(), context.attrs);
  int64_t positions = g.output_size(), out_size = g.input_size();
  int64_t rows = group_filters * g.kernel_size();
  int64_t chunk = column_chunk(g, rows, kColumnBudget);
  std::vector<float> columns(static_cast<size_t>(rows * chunk));
  const float* x_data = x.f32().data();
  const float* w_data = w.f32().data();
  float* y_data = context.outputs[0].mutable_f32().data();
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t k = 0; k < group; ++k) {
      const float* in = x_data + (n * channels + k * group_channels) * positions;
      const float* weight = w_data + k * group_channels * rows;  // [group_channels, rows]
      float* image = y_data + (n * filters + k * group_filters) * out_size;
      for (int64_t first = 0; first < positions; first += chunk) {
        int64_t count = std::min(chunk, positions - first);
        sgemm(true, false, rows, count, group_channels, 1.0f, weight, rows, in + first, positions, 0.0f, columns.data(),
              count);
        col2im_add(columns.data(), group_filters, g, first, count, image);
      }
    }
  }
  add_bias(context, batch, filters, out_size);
}

Cost conv_transpose_cost(const CostContext& context) {
  const Shape& x = context.input(0).shape;
  const Shape& w = context.input(1).shape;
  // Every input element meets every tap of the filters of its group once.
  double taps = static_cast<double>(w.numel() / std::max<int64_t>(1, w[0]));
  return {2.0 * static_cast<double>(x.numel()) * taps, context.input_bytes() + context.output_bytes()};
}

// Pads that give `output` extents: ONNX's total-padding rule, with SAME_UPPER putting the odd
// pad at the end. Output larger than the natural extent becomes extra output_padding.
void pads_for_output_shape(const OnnxImportNode& node, const std::vector<int64_t>& input,
                           const std::vector<int64_t>& output, const std::vector<int64_t>& kernel,
                           const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                           std::vector<int64_t>& output_padding, std::vector<int64_t>& pads) {
  bool upper = node.attr_string("auto_pad", "NOTSET") == "SAME_UPPER";
  size_t rank = input.size();
  pads.assign(2 * rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    int64_t total =
        strides[d] * (input[d] - 1) + output_padding[d] + dilated_extent(kernel[d], dilations[d]) - output[d];
    if (total < 0) {
      output_padding[d] -= total;
      total = 0;
    }
    pads[d] = upper ? total / 2 : total - total / 2;
    pads[d + rank] = total - pads[d];
  }
}

std::vector<int64_t> requested_output_shape(const OnnxImportNode& node, const std::vector<int64_t>& input) {
  size_t rank = input.size();
  if (node.has_attr("output_shape")) {
    std::vector<int64_t> shape = node.attr_ints("output_shape");
    if (shape.size() == rank + 2) shape.erase(shape.begin(), shape.begin() + 2);
    if (shape.size() != rank)
      node.fail(fmt::format("output_shape has {} entries but the input has {} spatial dims", shape.size(), rank),
                "give one entry per spatial dim");
    return shape;
  }
  std::vector<int64_t> shape;
  std::vector<int64_t> strides = import_spatial_ints(node, "strides", static_cast<int>(rank), 1);
  for (size_t d = 0; d < rank; ++d) shape.push_back(input[d] * strides[d]);
  return shape;
}

OnnxImported import_conv_transpose(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(
      node, {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"});
  std::vector<int64_t> input = import_spatial_extents(node, 0);
  int rank = static_cast<int>(input.size());
  const Shape& weight = node.input_type(1).shape;
  if (weight.rank() != rank + 2)
    node.fail(fmt::format("weight shape {} does not match input rank {}", weight.to_string(), rank + 2),
              "give the weight as [channels, filters / group, kernel...]");
  std::vector<int64_t> kernel = kernel_of(weight);
  if (node.has_attr("kernel_shape") && node.attr_ints("kernel_shape") != kernel)
    node.fail("kernel_shape does not match the weight shape " + weight.to_string(),
              "drop kernel_shape or make it match the weight");
  std::vector<int64_t> strides = import_spatial_ints(node, "strides", rank, 1);
  std::vector<int64_t> dilations = import_spatial_ints(node, "dilations", rank, 1);
  std::vector<int64_t> output_padding = import_spatial_ints(node, "output_padding", rank, 0);
  std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> pads;
  if (node.has_attr("output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    pads_for_output_shape(node, input, requested_output_shape(node, input), kernel, strides, dilations, output_padding,
                          pads);
  } else if (auto_pad == "VALID") {
    pads.assign(static_cast<size_t>(2 * rank), 0);
  } else if (auto_pad == "NOTSET") {
    pads = import_spatial_ints(node, "pads", 2 * rank, 0);
  } else {
    node.unsupported("auto_pad '" + auto_pad + "'");
  }
  OnnxImported result{def.name, {}, {0, 1}};
  result.attrs.set("strides", strides);
  result.attrs.set("pads", pads);
  result.attrs.set("dilations", dilations);
  result.attrs.set("group", node.attr_int("group", 1));
  result.attrs.set("output_padding", output_padding);
  if (node.num_inputs() > 2 && node.has_input(2)) result.inputs.push_back(2);
  return result;
}

}  // namespace

OpDef make_ConvTranspose() {
  OpDef def;
  def.name = "ConvTranspose";
  def.onnx_ops = {"ConvTranspose"};
  def.attrs = {attr_ints("strides"), attr_ints("pads"), attr_ints("dilations"), attr_int("group", 1),
               attr_ints("output_padding")};
  def.min_inputs = 2;
  def.max_inputs = 3;
  // Linear in input and weight separately; affine, not linear, with a bias (input 2).
  def.traits.linearity = Linearity::Multilinear;
  def.traits.linear_inputs = {0, 1};
  def.traits.compute_heavy = true;
  def.infer = infer_conv_transpose;
  def.compute = compute_conv_transpose;
  def.cost = conv_transpose_cost;
  def.from_onnx = import_conv_transpose;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
