// Resize (and the deprecated Upsample): nearest, N-D linear or cubic interpolation with explicit
// per-axis scales and output sizes, applied one axis at a time; tf_crop_and_resize coordinates
// read a region of interest (`roi`) and give `extrapolation_value` outside the input.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {
namespace {

const std::vector<std::string> kModes = {"nearest", "linear", "cubic"};
const std::vector<std::string> kCoordinateModes = {"half_pixel",         "asymmetric",
                                                   "align_corners",      "pytorch_half_pixel",
                                                   "tf_half_pixel_for_nearest", "tf_crop_and_resize",
                                                   "half_pixel_symmetric"};
constexpr double kDefaultCubicCoeff = -0.75;
const std::vector<std::string> kNearestModes = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

bool is_one_of(const std::string& value, const std::vector<std::string>& allowed) {
  return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// ---- semantics -------------------------------------------------------------------------

// The input coordinate output coordinate `o` maps to along one axis (ONNX's
// coordinate_transformation_mode; the resized length is input x scale, as in the ONNX reference).
// For tf_crop_and_resize, `roi` is the axis's [start, end] in input-relative units.
double source_coordinate(const std::string& mode, int64_t o, int64_t input, int64_t output, double scale,
                         std::array<double, 2> roi) {
  double length = static_cast<double>(input) * scale;
  // Scales derived from sizes are float32 ratios; their product with the input is the size.
  if (std::abs(length - static_cast<double>(output)) < 1e-6 * std::max<double>(1.0, static_cast<double>(output)))
    length = static_cast<double>(output);
  auto x = static_cast<double>(o);
  if (mode == "tf_crop_and_resize") {
    auto span = static_cast<double>(input - 1);
    if (output == 1) return 0.5 * (roi[0] + roi[1]) * span;
    return roi[0] * span + x * (roi[1] - roi[0]) * span / static_cast<double>(output - 1);
  }
  if (mode == "asymmetric") return x / scale;
  if (mode == "tf_half_pixel_for_nearest") return (x + 0.5) / scale;
  if (mode == "align_corners") return length == 1.0 ? 0.0 : x * static_cast<double>(input - 1) / (length - 1.0);
  if (mode == "pytorch_half_pixel" && length <= 1.0) return -0.5;
  if (mode == "half_pixel_symmetric") {  // half_pixel, centred when the output size was rounded
    double adjustment = static_cast<double>(output) / length;
    return static_cast<double>(input) / 2.0 * (1.0 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  return (x + 0.5) / scale - 0.5;  // half_pixel, pytorch_half_pixel
}

int64_t round_nearest(const std::string& mode, double x) {
  double low = std::floor(x);
  if (x == low || mode == "floor") return static_cast<int64_t>(low);
  if (mode == "ceil") return static_cast<int64_t>(low) + 1;
  double fraction = x - low;
  bool up = mode == "round_prefer_ceil" ? fraction >= 0.5 : fraction > 0.5;
  return static_cast<int64_t>(low) + (up ? 1 : 0);
}

// Weights of the taps floor(x) - 1 .. floor(x) + 2 at fraction t of x: ONNX's cubic
// convolution kernel with coefficient a.
std::array<double, 4> cubic_weights(double t, double a) {
  auto near = [a](double s) { return ((a + 2) * s - (a + 3)) * s * s + 1; };       // |s| <= 1
  auto far = [a](double s) { return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a; };  // 1 < |s| < 2
  return {far(1 + t), near(t), near(1 - t), far(2 - t)};
}

// One axis of the resize: per output coordinate, `taps` source indices (clamped to the axis)
// and their weights, or the extrapolation value when the coordinate lies outside the input.
struct AxisPlan {
  size_t taps = 1;
  std::vector<int64_t> index;    // output x taps
  std::vector<float> weight;     // output x taps
  std::vector<uint8_t> outside;  // per output: 1 takes extrapolation_value
  bool identity = true;
};

// Appends one output's taps: nearest takes one, linear two, cubic four (with exclude_outside,
// taps outside the axis drop out and the rest are renormalized).
void add_taps(const Attributes& attrs, double x, int64_t input, AxisPlan& plan) {
  const std::string& mode = attrs.get_string("mode");
  double low = std::floor(x), t = x - low;
  auto first = static_cast<int64_t>(low);
  std::vector<double> weights;
  if (mode == "nearest") {
    first = round_nearest(attrs.get_string("nearest_mode"), x);
    weights = {1.0};
  } else if (mode == "linear") {
    weights = {1.0 - t, t};
  } else {
    std::array<double, 4> cubic = cubic_weights(t, attrs.get_float("cubic_coeff_a"));
    weights.assign(cubic.begin(), cubic.end());
    first -= 1;
    if (attrs.get_int("exclude_outside") != 0) {
      double sum = 0;
      for (size_t k = 0; k < weights.size(); ++k) {
        int64_t at = first + static_cast<int64_t>(k);
        if (at < 0 || at >= input) weights[k] = 0;
        sum += weights[k];
      }
      for (double& w : weights) w /= sum;
    }
  }
  for (size_t k = 0; k < weights.size(); ++k) {
    plan.index.push_back(std::clamp<int64_t>(first + static_cast<int64_t>(k), 0, input - 1));
    // 1 - t rounded as float first, as the linear kernel always did.
    plan.weight.push_back(mode == "linear" && k == 0 ? 1.0f - static_cast<float>(t) : static_cast<float>(weights[k]));
  }
}

AxisPlan plan_axis(const Attributes& attrs, size_t axis, int64_t input, int64_t output, double scale) {
  const std::string& coordinate_mode = attrs.get_string("coordinate_transformation_mode");
  const std::vector<double>& roi = attrs.get_floats("roi");
  std::array<double, 2> region{0.0, 1.0};
  if (!roi.empty()) region = {roi[axis], roi[axis + roi.size() / 2]};
  bool crop = coordinate_mode == "tf_crop_and_resize";
  AxisPlan plan;
  plan.identity = input == output;
  for (int64_t o = 0; o < output; ++o) {
    double x = source_coordinate(coordinate_mode, o, input, output, scale, region);
    size_t start = plan.index.size();
    add_taps(attrs, x, input, plan);
    plan.taps = plan.index.size() - start;
    bool outside = crop && (x < 0 || x > static_cast<double>(input - 1));
    plan.outside.push_back(outside ? 1 : 0);
    for (size_t k = start; k < plan.index.size(); ++k)
      plan.identity = plan.identity && !outside && (plan.weight[k] == 0.0f || plan.index[k] == o);
  }
  return plan;
}

// Resizes `axis` of `in` (shape `dims`) into `out`, updating dims[axis].
void resize_axis(const std::vector<float>& in, std::vector<int64_t>& dims, size_t axis, const AxisPlan& plan,
                 float extrapolation_value, std::vector<float>& out) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  int64_t input = dims[axis], output = static_cast<int64_t>(plan.outside.size());
  out.assign(static_cast<size_t>(outer * output * inner), 0.0f);
  for (int64_t b = 0; b < outer; ++b) {
    for (int64_t o = 0; o < output; ++o) {
      float* dst = out.data() + (b * output + o) * inner;
      if (plan.outside[static_cast<size_t>(o)]) {
        std::fill(dst, dst + inner, extrapolation_value);
        continue;
      }
      for (size_t k = static_cast<size_t>(o) * plan.taps; k < static_cast<size_t>(o + 1) * plan.taps; ++k) {
        float w = plan.weight[k];
        if (w == 0.0f) continue;
        const float* src = in.data() + (b * input + plan.index[k]) * inner;
        for (int64_t j = 0; j < inner; ++j) dst[j] += w * src[j];
      }
    }
  }
  dims[axis] = output;
}

void compute_resize(KernelContext& context) {
  const Tensor& x = context.input(0);
  const std::vector<int64_t>& sizes = context.attrs.get_ints("sizes");
  const std::vector<double>& scales = context.attrs.get_floats("scales");
  auto extrapolation_value = static_cast<float>(context.attrs.get_float("extrapolation_value"));
  std::vector<int64_t> dims = x.shape().dims();
  std::vector<float> current(x.f32().begin(), x.f32().end()), next;
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    AxisPlan plan = plan_axis(context.attrs, axis, dims[axis], sizes[axis], scales[axis]);
    if (plan.identity) continue;
    resize_axis(current, dims, axis, plan, extrapolation_value, next);
    current.swap(next);
  }
  std::copy(current.begin(), current.end(), context.outputs[0].mutable_f32().begin());
}

ShapeResult infer_resize(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  const Attributes& attrs = context.attrs;
  PET_REFUSE_UNLESS(context, x.dtype == DType::f32,
                    "does not support element type " + std::string(dtype_name(x.dtype)));
  PET_REFUSE_UNLESS(context, is_one_of(attrs.get_string("mode"), kModes),
                    "mode '" + attrs.get_string("mode") + "' is unknown");
  const std::string& coordinate_mode = attrs.get_string("coordinate_transformation_mode");
  PET_REFUSE_UNLESS(context, is_one_of(coordinate_mode, kCoordinateModes),
                    "coordinate_transformation_mode '" + coordinate_mode + "' is unknown");
  const std::string& nearest_mode = attrs.get_string("nearest_mode");
  PET_REFUSE_UNLESS(context, is_one_of(nearest_mode, kNearestModes), "nearest_mode '" + nearest_mode + "' is unknown");
  const std::vector<double>& scales = attrs.get_floats("scales");
  const std::vector<int64_t>& sizes = attrs.get_ints("sizes");
  auto rank = static_cast<size_t>(x.shape.rank());
  PET_REFUSE_UNLESS(context, scales.size() == rank && sizes.size() == rank,
                    fmt::format("scales and sizes need {} entries (the input rank), got {} and {}", rank, scales.size(),
                                sizes.size()));
  const std::vector<double>& roi = attrs.get_floats("roi");
  PET_REFUSE_UNLESS(context, roi.empty() || roi.size() == 2 * rank,
                    fmt::format("roi needs {} entries (starts then ends), got {}", 2 * rank, roi.size()));
  PET_REFUSE_UNLESS(context, coordinate_mode != "tf_crop_and_resize" || !roi.empty(), "tf_crop_and_resize needs a roi");
  int64_t exclude_outside = attrs.get_int("exclude_outside");
  PET_REFUSE_UNLESS(context, exclude_outside == 0 || exclude_outside == 1,
                    fmt::format("exclude_outside {} must be 0 or 1", exclude_outside));
  for (size_t d = 0; d < rank; ++d) {
    PET_REFUSE_UNLESS(context, scales[d] > 0, fmt::format("scale {} of axis {} must be positive", scales[d], d));
    PET_REFUSE_UNLESS(context, sizes[d] >= 0, fmt::format("size {} of axis {} must be >= 0", sizes[d], d));
    PET_REFUSE_UNLESS(context, sizes[d] == 0 || x.shape[static_cast<int>(d)] > 0,
                      fmt::format("cannot resize empty axis {} to {}", d, sizes[d]));
  }
  return {{DType::f32, Shape(sizes)}};
}

Cost resize_cost(const CostContext& context) {
  const std::string& mode = context.attrs.get_string("mode");
  double per_axis = mode == "linear" ? 3.0 : mode == "cubic" ? 8.0 : 0.0;
  return elementwise_cost(context, per_axis * context.input(0).shape.rank());
}

// ---- ONNX import -----------------------------------------------------------------------

// The scale ONNX derives from sizes, in float32 like ONNX Runtime (canonical float attributes
// are float32 values, so the text IR prints them exactly).
double sizes_ratio(int64_t size, int64_t input) {
  return static_cast<double>(static_cast<float>(size) / static_cast<float>(input));
}

std::vector<double> read_scales(const OnnxImportNode& node, const Tensor& tensor, size_t count) {
  if (static_cast<size_t>(tensor.numel()) != count)
    node.fail(fmt::format("scales has {} entries for {} resized axes", tensor.numel(), count),
              "give one scale per resized axis");
  std::vector<double> scales;
  for (int64_t i = 0, end = tensor.numel(); i < end; ++i) scales.push_back(static_cast<float>(tensor.as_double(i)));
  for (double s : scales)
    if (!(s > 0)) node.fail(fmt::format("scale {} is not positive", s), "give positive scales");
  return scales;
}

// The axes scales, sizes and roi refer to: opset 18's `axes` attribute, or every axis.
std::vector<int64_t> resized_axes(const OnnxImportNode& node, int rank) {
  std::vector<int64_t> axes;
  if (node.op_type() == "Resize" && node.opset() >= 18 && node.has_attr("axes")) {
    for (int64_t axis : node.attr_ints("axes")) axes.push_back(import_axis(node, axis, rank, "axes entry"));
    std::vector<int64_t> sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      node.fail("axes " + ints_to_string(node.attr_ints("axes")) + " repeat an axis", "list each axis once");
    return axes;
  }
  for (int d = 0; d < rank; ++d) axes.push_back(d);
  return axes;
}

// Sizes for every axis from sizes given for `axes`, under keep_aspect_ratio_policy (opset 18):
// "stretch" takes them as they are; "not_larger" / "not_smaller" scale every listed axis by the
// smallest / largest of their ratios and round the sizes half up. Returns the per-axis scales.
std::vector<double> scales_for_sizes(const OnnxImportNode& node, const Shape& input, const std::vector<int64_t>& axes,
                                     std::vector<int64_t>& sizes) {
  std::string policy = node.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    node.unsupported("keep_aspect_ratio_policy '" + policy + "'");
  std::vector<double> scales;
  for (int d = 0; d < input.rank(); ++d) scales.push_back(sizes_ratio(sizes[static_cast<size_t>(d)], input[d]));
  if (policy == "stretch") return scales;
  double shared = scales[static_cast<size_t>(axes.front())];
  for (int64_t axis : axes) {
    double ratio = scales[static_cast<size_t>(axis)];
    shared = policy == "not_larger" ? std::min(shared, ratio) : std::max(shared, ratio);
  }
  for (int64_t axis : axes) {
    scales[static_cast<size_t>(axis)] = shared;
    sizes[static_cast<size_t>(axis)] =
        static_cast<int64_t>(std::floor(shared * static_cast<double>(input[static_cast<int>(axis)]) + 0.5));
  }
  return scales;
}

// Scales and sizes from the constant inputs (or Upsample-7's attribute); the other one derived
// as ONNX defines it: sizes = floor(input x scale), or scale = size / input. Axes left out of
// opset 18's `axes` keep scale 1 and their size.
void import_scales_and_sizes(const OnnxImportNode& node, Attributes& attrs) {
  const Shape& input = node.input_type(0).shape;
  auto rank = static_cast<size_t>(input.rank());
  std::vector<int64_t> axes = resized_axes(node, input.rank());
  bool resize11 = node.op_type() == "Resize" && node.opset() >= 11;
  int scales_index = resize11 ? 2 : 1;
  std::vector<double> scales(rank, 1.0);
  std::vector<int64_t> sizes(input.dims().begin(), input.dims().end());
  if (resize11 && node.has_input(3) && node.require_constant_input(3, "sizes").numel() > 0) {
    if (node.has_input(2) && node.require_constant_input(2, "scales").numel() > 0)
      node.fail("both scales and sizes are given", "give only one of them");
    std::vector<int64_t> listed = node.require_constant_input(3, "sizes").to_int_vector();
    if (listed.size() != axes.size())
      node.fail(fmt::format("sizes has {} entries for {} resized axes", listed.size(), axes.size()),
                "give one size per resized axis");
    for (size_t i = 0; i < axes.size(); ++i) sizes[static_cast<size_t>(axes[i])] = listed[i];
    scales = scales_for_sizes(node, input, axes, sizes);
  } else {
    std::vector<double> listed;
    if (node.op_type() == "Upsample" && node.opset() < 9)
      listed = node.attr_floats("scales");
    else if (node.has_input(scales_index))
      listed = read_scales(node, node.require_constant_input(scales_index, "scales"), axes.size());
    else
      node.fail("neither scales nor sizes is given", "give one of them");
    if (listed.size() != axes.size())
      node.fail(fmt::format("scales has {} entries for {} resized axes", listed.size(), axes.size()),
                "give one scale per resized axis");
    for (size_t i = 0; i < axes.size(); ++i) scales[static_cast<size_t>(axes[i])] = listed[i];
    for (size_t d = 0; d < rank; ++d)
      sizes[d] = static_cast<int64_t>(std::floor(static_cast<double>(input[static_cast<int>(d)]) * scales[d]));
  }
  attrs.set("scales", scales);
  attrs.set("sizes", sizes);
}

// Resize-10 and Upsample have no coordinate or rounding attributes: ONNX Runtime maps outputs
// asymmetrically and rounds down when upsampling, up when downsampling.
void import_legacy_modes(const OnnxImportNode& node, Attributes& attrs) {
  attrs.set("coordinate_transformation_mode", std::string("asymmetric"));
  const std::vector<double>& scales = attrs.get_floats("scales");
  bool up = std::any_of(scales.begin(), scales.end(), [](double s) { return s > 1; });
  bool down = std::any_of(scales.begin(), scales.end(), [](double s) { return s < 1; });
  if (up && down && attrs.get_string("mode") == "nearest")
    node.unsupported("nearest resizing that upsamples some axes and downsamples others before opset 11");
  attrs.set("nearest_mode", std::string(down ? "ceil" : "floor"));
}

void import_modes(const OnnxImportNode& node, Attributes& attrs) {
  std::string coordinate_mode = node.attr_string("coordinate_transformation_mode", "half_pixel");
  if (coordinate_mode == "tf_half_pixel_for_nn") coordinate_mode = "tf_half_pixel_for_nearest";  // opset-11 name
  if (!is_one_of(coordinate_mode, kCoordinateModes))
    node.unsupported("coordinate_transformation_mode '" + coordinate_mode + "'");
  if (coordinate_mode == "half_pixel_symmetric" && node.opset() < 19)
    node.unsupported("coordinate_transformation_mode 'half_pixel_symmetric' before opset 19 (where ONNX added it)");
  std::string nearest_mode = node.attr_string("nearest_mode", "round_prefer_floor");
  if (!is_one_of(nearest_mode, kNearestModes)) node.unsupported("nearest_mode '" + nearest_mode + "'");
  attrs.set("coordinate_transformation_mode", coordinate_mode);
  attrs.set("nearest_mode", nearest_mode);
}

void reject_unsupported_options(const OnnxImportNode& node) {
  reject_unknown_attrs(node,
                       {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                        "extrapolation_value", "antialias", "axes", "keep_aspect_ratio_policy", "scales"});
  if (node.attr_int("antialias", 0) != 0) node.unsupported("antialias=1");
  if (node.has_attr("scales") && node.op_type() != "Upsample") node.unsupported("attribute 'scales'");
}

// Cubic and tf_crop_and_resize options, at their defaults when the modes do not use them.
void import_cubic_and_crop(const OnnxImportNode& node, Attributes& attrs) {
  bool cubic = attrs.get_string("mode") == "cubic";
  attrs.set("cubic_coeff_a", cubic ? node.attr_float("cubic_coeff_a", kDefaultCubicCoeff) : kDefaultCubicCoeff);
  attrs.set("exclude_outside", cubic ? node.attr_int("exclude_outside", 0) : int64_t{0});
  bool crop = attrs.get_string("coordinate_transformation_mode") == "tf_crop_and_resize";
  std::vector<double> roi;
  if (crop) {
    if (!node.has_input(1)) node.fail("tf_crop_and_resize needs the roi input", "give the region of interest");
    const Tensor& value = node.require_constant_input(1, "roi");
    int rank = node.input_type(0).shape.rank();
    std::vector<int64_t> axes = resized_axes(node, rank);
    if (static_cast<size_t>(value.numel()) != 2 * axes.size())
      node.fail(fmt::format("roi has {} entries for {} resized axes", value.numel(), axes.size()),
                "give the starts, then the ends, of every resized axis");
    roi.assign(static_cast<size_t>(rank), 0.0);  // axes left out keep the whole extent [0, 1]
    roi.resize(2 * static_cast<size_t>(rank), 1.0);
    for (size_t i = 0; i < axes.size(); ++i) {
      roi[static_cast<size_t>(axes[i])] = static_cast<float>(value.as_double(static_cast<int64_t>(i)));
      roi[static_cast<size_t>(axes[i] + rank)] =
          static_cast<float>(value.as_double(static_cast<int64_t>(i + axes.size())));
    }
  }
  attrs.set("roi", roi);
  attrs.set("extrapolation_value", crop ? node.attr_float("extrapolation_value", 0.0) : 0.0);
}

OnnxImported import_resize(const OpDef& def, const OnnxImportNode& node) {
  reject_unsupported_options(node);
  std::string mode = node.attr_string("mode", "nearest");
  if (!is_one_of(mode, kModes)) node.unsupported("mode '" + mode + "'");
  OnnxImported result{def.name, {}, {0}};
  result.attrs.set("mode", mode);
  bool legacy = node.op_type() == "Upsample" || node.opset() < 11;
  if (legacy && mode == "cubic") node.unsupported("mode 'cubic' before opset 11");
  if (!legacy) import_modes(node, result.attrs);  // first, so unsupported modes are reported as such
  import_scales_and_sizes(node, result.attrs);
  if (legacy) import_legacy_modes(node, result.attrs);
  import_cubic_and_crop(node, result.attrs);
  if (mode != "nearest") result.attrs.set("nearest_mode", std::string("round_prefer_floor"));  // unused: canonical
  return result;
}

// ---- ONNX export -----------------------------------------------------------------------

// Scales are exported when importing them gives back the sizes, else sizes (whose import
// gives back scales derived from sizes). Without the input type, scales that equal size / n for
// an integer n are taken as derived from sizes.
bool export_as_scales(const Node& node, const OnnxExportNode& out) {
  const std::vector<double>& scales = node.attrs.get_floats("scales");
  const std::vector<int64_t>& sizes = node.attrs.get_ints("sizes");
  std::optional<TensorType> input = out.input_type(0);
  for (size_t d = 0; d < scales.size(); ++d) {
    if (input) {
      auto extent = static_cast<double>(input->shape[static_cast<int>(d)]);
      if (static_cast<int64_t>(std::floor(extent * scales[d])) != sizes[d]) return false;
      continue;
    }
    auto candidate = static_cast<int64_t>(std::llround(static_cast<double>(sizes[d]) / scales[d]));
    if (candidate < 1 || sizes_ratio(sizes[d], candidate) != scales[d]) return true;
  }
  return input.has_value();
}

// Written sizes are read back with scales size / input; a scale that keep_aspect_ratio_policy
// shared across axes (with rounded sizes) has no such form.
void require_sizes_give_scales(const Node& node, const OnnxExportNode& out) {
  std::optional<TensorType> input = out.input_type(0);
  if (!input) return;
  const std::vector<double>& scales = node.attrs.get_floats("scales");
  const std::vector<int64_t>& sizes = node.attrs.get_ints("sizes");
  for (size_t d = 0; d < scales.size(); ++d)
    if (static_cast<float>(sizes_ratio(sizes[d], input->shape[static_cast<int>(d)])) != static_cast<float>(scales[d]))
      throw UserError(fmt::format("node '{}' (Resize): axis {} resizes {} to {} with scale {}, which neither scales "
                                  "nor sizes can say; keep the original model's Resize",
                                  node.name, d, input->shape[static_cast<int>(d)], sizes[d], scales[d]));
}

Tensor scales_tensor(const std::vector<double>& scales) {
  std::vector<float> values(scales.begin(), scales.end());
  return Tensor::f32(Shape{static_cast<int64_t>(values.size())}, values);
}

void export_legacy(const Node& node, OnnxExportNode& out) {
  const Attributes& attrs = node.attrs;
  if (attrs.get_string("mode") == "cubic") require_export_opset(node, out, 11, "mode 'cubic'");
  const std::vector<double>& scales = attrs.get_floats("scales");
  bool down = std::any_of(scales.begin(), scales.end(), [](double s) { return s < 1; });
  bool nearest_ok =
      attrs.get_string("mode") == "linear" || attrs.get_string("nearest_mode") == (down ? "ceil" : "floor");
  if (attrs.get_string("coordinate_transformation_mode") != "asymmetric" || !nearest_ok)
    throw UserError(
        fmt::format("node '{}' (Resize): opset {} only has asymmetric coordinates with fixed rounding; "
                    "export at opset 11 or later",
                    node.name, out.opset()));
  Attributes legacy{{"mode", attrs.get_string("mode")}};
  if (out.opset() < 9) {
    legacy.set("scales", scales);
    out.add_node("Upsample", {out.input(0)}, {out.output(0)}, legacy);
    return;
  }
  out.add_node(out.opset() < 10 ? "Upsample" : "Resize", {out.input(0), out.add_constant(scales_tensor(scales))},
               {out.output(0)}, legacy);
}

void export_resize(const Node& node, OnnxExportNode& out) {
  if (out.opset() < 11) return export_legacy(node, out);
  const Attributes& attrs = node.attrs;
  if (attrs.get_string("coordinate_transformation_mode") == "half_pixel_symmetric")
    require_export_opset(node, out, 19, "coordinate_transformation_mode 'half_pixel_symmetric'");
  Attributes onnx_attrs{{"mode", attrs.get_string("mode")},
                        {"coordinate_transformation_mode", attrs.get_string("coordinate_transformation_mode")},
                        {"nearest_mode", attrs.get_string("nearest_mode")}};
  if (attrs.get_string("mode") == "cubic") {
    onnx_attrs.set("cubic_coeff_a", attrs.get_float("cubic_coeff_a"));
    onnx_attrs.set("exclude_outside", attrs.get_int("exclude_outside"));
  }
  bool old = out.opset() < 13;  // roi and scales may not be omitted before opset 13
  Tensor empty = Tensor::f32(Shape{0}, {});
  std::string roi = old ? out.add_constant(empty) : "";
  if (!attrs.get_floats("roi").empty()) {
    std::vector<float> region(attrs.get_floats("roi").begin(), attrs.get_floats("roi").end());
    roi = out.add_constant(Tensor::f32(Shape{static_cast<int64_t>(region.size())}, region));
    onnx_attrs.set("extrapolation_value", attrs.get_float("extrapolation_value"));
  }
  std::vector<std::string> inputs;
  if (export_as_scales(node, out)) {
    inputs = {out.input(0), roi, out.add_constant(scales_tensor(attrs.get_floats("scales")))};
  } else {
    require_sizes_give_scales(node, out);
    const std::vector<int64_t>& sizes = attrs.get_ints("sizes");
    inputs = {out.input(0), roi, old ? out.add_constant(empty) : "",
              out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(sizes.size())}, sizes))};
  }
  out.add_node("Resize", inputs, {out.output(0)}, onnx_attrs);
}

}  // namespace

OpDef make_Resize() {
  OpDef def;
  def.name = "Resize";
  def.onnx_ops = {"Resize", "Upsample"};
  def.attrs = {attr_string("mode", "nearest"), attr_string("coordinate_transformation_mode", "half_pixel"),
               attr_string("nearest_mode", "round_prefer_floor"), attr_floats("scales"), attr_ints("sizes"),
               attr_float("cubic_coeff_a", kDefaultCubicCoeff), attr_int("exclude_outside", 0),
               attr_floats("roi", std::vector<double>{}), attr_float("extrapolation_value", 0.0)};
  // Every output is a fixed combination of inputs (weights depend only on shapes).
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  // ...except for a nonzero tf_crop_and_resize extrapolation value, which makes it affine.
  def.traits.linear_when = [](const Attributes& attrs) { return attrs.get_float("extrapolation_value") == 0.0; };
  def.infer = infer_resize;
  def.compute = compute_resize;
  def.cost = resize_cost;
  def.from_onnx = import_resize;
  def.to_onnx = export_resize;
  return with_bfloat16_through_float(std::move(def));
}

}  // namespace pet::ops
