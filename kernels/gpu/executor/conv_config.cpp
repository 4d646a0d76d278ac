// ConvConfig from a Conv node and its step's epilogue: ONNX's canonical attributes mapped onto
// cuDNN's Nd descriptors, each limit cuDNN has checked once here.
#include "kernels/gpu/executor/conv_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

namespace pet::gpu {
namespace {

constexpr const char* kRelu = "relu";

bool fits_int(int64_t value) { return value >= 0 && value <= std::numeric_limits<int>::max(); }

// `dims` as ints, a 1-D Conv's [N, C, W] as [N, C, 1, W]; nullopt when an extent exceeds int.
std::optional<std::vector<int>> cudnn_dims(const Shape& shape) {
  std::vector<int> dims;
  for (int64_t extent : shape.dims()) {
    if (!fits_int(extent)) return std::nullopt;
    dims.push_back(static_cast<int>(extent));
  }
  if (dims.size() == 3) dims.insert(dims.begin() + 2, 1);
  return dims;
}

// One value per spatial dim, a 1-D Conv's with `unit` for the added height first.
std::vector<int> spatial_ints(const std::vector<int64_t>& values, int64_t unit) {
  std::vector<int> result;
  if (values.size() == 1) result.push_back(static_cast<int>(unit));
  for (int64_t value : values) result.push_back(static_cast<int>(value));
  return result;
}

// Empty when the bias can be read as one value per channel; else why not.
std::string bias_refusal(const Graph& graph, ValueId bias, int64_t channels) {
  if (bias == kNoValue) return "";
  const Value& value = graph.value(bias);
  if (value.type.dtype != DType::f32) return fmt::format("its bias '{}' is {}", value.name, value.type.to_string());
  int64_t count = value.type.shape.numel();
  if (count == channels || (count == 1 && value.constant)) return "";
  return fmt::format("its bias '{}' of shape {} holds neither {} per-channel values nor one weight", value.name,
                     value.type.shape.to_string(), channels);
}

std::string geometry_refusal(const std::vector<int64_t>& pads, const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& dilations) {
  for (const auto* values : {&pads, &strides, &dilations})
    for (int64_t value : *values)
      if (!fits_int(value)) return fmt::format("its pads, strides or dilations exceed cuDNN's int");
  return "";
}

}  // namespace

int64_t ConvConfig::output_elements() const {
  int64_t count = 1;
  for (int extent : output) count *= extent;
  return count;
}

std::string ConvConfig::key() const {
  std::string end = symmetric_pads() ? "" : fmt::format(" pads_end[{}]", fmt::join(pads_end, ","));
  return fmt::format("x[{}] w[{}] pads[{}]{} strides[{}] dilations[{}] groups {}", fmt::join(input, ","),
                     fmt::join(filter, ","), fmt::join(pads, ","), end, fmt::join(strides, ","),
                     fmt::join(dilations, ","), groups);
}

ConvPreparation prepare_conv(const Graph& graph, const Step& step) {
  const Node& conv = graph.node(step.nodes.front());
  const auto& pads = conv.attrs.get_ints("pads");
  const auto& strides = conv.attrs.get_ints("strides");
  const auto& dilations = conv.attrs.get_ints("dilations");
  if (std::string why = geometry_refusal(pads, strides, dilations); !why.empty()) return {std::nullopt, why};
  ValueId y = step.outputs.at(0);
  auto input = cudnn_dims(graph.value(conv.inputs[0]).type.shape);
  auto filter = cudnn_dims(graph.value(conv.inputs[1]).type.shape);
  auto output = cudnn_dims(graph.value(y).type.shape);
  if (!input || !filter || !output) return {std::nullopt, "a tensor extent exceeds cuDNN's int"};
  if (step.epilogue.activation != kNoActivation && step.epilogue.activation != kRelu)
    return {std::nullopt, fmt::format("its activation '{}' is none cuDNN fuses", step.epilogue.activation)};
  if (std::string why = bias_refusal(graph, step.epilogue.bias, (*output)[1]); !why.empty()) return {std::nullopt, why};
  ConvConfig config;
  config.input = *input;
  config.filter = *filter;
  config.output = *output;
  auto half = static_cast<int64_t>(pads.size() / 2);
  config.pads = spatial_ints({pads.begin(), pads.begin() + half}, 0);
  config.pads_end = spatial_ints({pads.begin() + half, pads.end()}, 0);
  config.strides = spatial_ints(strides, 1);
  config.dilations = spatial_ints(dilations, 1);
  config.groups = static_cast<int>(conv.attrs.get_int("group"));
  config.x = conv.inputs[0];
  config.w = conv.inputs[1];
  config.y = y;
  config.bias = step.epilogue.bias;
  config.bias_is_weight = config.bias != kNoValue && graph.is_constant(config.bias);
  config.residual = step.epilogue.residual;
  config.relu = step.epilogue.activation == kRelu;
  return {config, ""};
}

std::string to_string(ConvCall call) {
  switch (call) {
    case ConvCall::forward:
      return "forward";
    case ConvCall::fused:
      return "fused bias-activation";
    case ConvCall::forward_then_epilogue:
      return "forward + generated epilogue";
  }
  return "?";
}

ConvCall conv_call(const ConvConfig& config, bool implicit_precomp_gemm) {
  bool adds = config.bias != kNoValue || config.residual != kNoValue;
  if (!adds && !config.relu) return ConvCall::forward;
  if (config.relu || implicit_precomp_gemm) return ConvCall::fused;
  return ConvCall::forward_then_epilogue;
}

}  // namespace pet::gpu
