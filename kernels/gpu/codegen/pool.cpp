// Pool steps: MaxPool and AveragePool through the hand-written window kernel
// handwritten/pool.cu, every pool seen as 3-D (missing leading spatial axes have extent 1, kernel
// 1, stride 1, no pads); GlobalAveragePool and GlobalMaxPool as reductions (reduce.cpp).
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/handwritten.h"

namespace pet::gpu::codegen {
namespace {

constexpr int kPoolAxes = 3;
constexpr const char* kAxisNames[kPoolAxes] = {"D", "H", "W"};
constexpr const char* kWhatRuns = "MaxPool and AveragePool of 1 to 3 spatial dims, GlobalAveragePool and GlobalMaxPool";

// One spatial axis of the window, with unit defaults for the axes a pool lacks.
struct PoolAxis {
  int64_t input = 1, output = 1, kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0;
};

std::vector<PoolAxis> pool_axes(const Node& node, const Shape& input, const Shape& output) {
  int spatial = input.rank() - 2;
  const auto& kernel = node.attrs.get_ints("kernel_shape");
  const auto& strides = node.attrs.get_ints("strides");
  const auto& pads = node.attrs.get_ints("pads");
  bool dilated = node.attrs.has("dilations");  // MaxPool's; AveragePool has none
  std::vector<PoolAxis> axes(static_cast<size_t>(kPoolAxes - spatial));
  for (int s = 0; s < spatial; ++s) {
    auto u = static_cast<size_t>(s);
    axes.push_back({input[s + 2], output[s + 2], kernel[u], strides[u],
                    dilated ? node.attrs.get_ints("dilations")[u] : 1, pads[u],
                    pads[u + static_cast<size_t>(spatial)]});
  }
  return axes;
}

std::vector<std::string> axis_constants(const std::vector<PoolAxis>& axes) {
  std::vector<std::string> constants;
  for (int a = 0; a < kPoolAxes; ++a) {
    const PoolAxis& axis = axes[static_cast<size_t>(a)];
    std::string name = kAxisNames[a];
    constants.push_back(index_constant("kIn" + name, axis.input));
    constants.push_back(index_constant("kOut" + name, axis.output));
    constants.push_back(index_constant("kKernel" + name, axis.kernel));
    constants.push_back(index_constant("kStride" + name, axis.stride));
    constants.push_back(index_constant("kDilation" + name, axis.dilation));
    constants.push_back(index_constant("kPad" + name, axis.pad_begin));
    constants.push_back(index_constant("kPadEnd" + name, axis.pad_end));
  }
  return constants;
}

GeneratedKernel window_pool(const StepContext& context) {
  const Node& node = context.node();
  if (node.outputs.size() != 1) refuse_node(node, "the pool kernel writes no indices output", kWhatRuns);
  const TensorType& input = context.type(node.inputs.at(0));
  const TensorType& output = context.type(node.outputs[0]);
  int spatial = input.shape.rank() - 2;
  if (spatial < 1 || spatial > kPoolAxes)
    refuse_node(node, fmt::format("a pool of {} spatial dims", spatial), kWhatRuns);
  bool is_max = node.op() == "MaxPool";
  TemplateKernel kernel;
  kernel.family = "pool";
  kernel.summary = fmt::format("{} of {} -> {}", node.op(), input.to_string(), output.to_string());
  kernel.launch = elementwise_launch(output.shape.numel());
  kernel.constants = {index_constant("kBlock", kernel.launch.block),
                      index_constant("kPlanes", input.shape[0] * input.shape[1])};
  for (std::string& constant : axis_constants(pool_axes(node, input.shape, output.shape)))
    kernel.constants.push_back(std::move(constant));
  kernel.constants.push_back(bool_constant("kMax", is_max));
  kernel.constants.push_back(
      bool_constant("kCountIncludePad", !is_max && node.attrs.get_int("count_include_pad") != 0));
  kernel.kernel_template = "pool";
  kernel.arguments = {{node.inputs[0], ArgumentAccess::read}, {node.outputs[0], ArgumentAccess::write}};
  kernel.largest = std::max(input.shape.numel(), output.shape.numel());
  return template_kernel(kernel);
}

}  // namespace

GeneratedKernel generate_pool(const StepContext& context) {
  const std::string& op = context.node().op();
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") return generate_global_pool(context);
  if (op == "MaxPool" || op == "AveragePool") return window_pool(context);
  refuse_node(context.node(), "the pool kernels compute no other op", kWhatRuns);
}

}  // namespace pet::gpu::codegen
