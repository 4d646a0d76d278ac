// layer_norm steps (a LayerNormalization node, or the nine standard ops the plan matched):
// rows of the axis and every later dim, one block per row of the hand-written
// handwritten/layer_norm.cu; scale and bias offsets generated from their broadcast.
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/handwritten.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {
namespace {

// The offset of x's element (row, column) in an operand broadcast to x's shape: the row runs over
// x's dims before the axis, the column over the rest.
std::string broadcast_offset_function(const std::string& name, const Shape* operand, const Shape& x, size_t axis) {
  std::string offset = "0";  // an absent operand: the template never reads it
  if (operand != nullptr) {
    std::vector<int64_t> strides = broadcast_strides(*operand, x);
    const std::vector<int64_t>& dims = x.dims();
    auto split = static_cast<std::ptrdiff_t>(axis);
    StridedAccess by_row{{dims.begin(), dims.begin() + split}, {strides.begin(), strides.begin() + split}, 0};
    StridedAccess by_column{{dims.begin() + split, dims.end()}, {strides.begin() + split, strides.end()}, 0};
    offset = linear_combination({{strided_offset(by_row, "row"), 1}, {strided_offset(by_column, "column"), 1}});
  }
  return fmt::format("__device__ __forceinline__ index {}(index row, index column) {{ return {}; }}\n", name, offset);
}

// What the kernel reads and writes, from either form of the step.
struct LayerNormOperands {
  ValueId x = kNoValue, scale = kNoValue, bias = kNoValue;
  ValueId y = kNoValue, mean = kNoValue, inverse_stddev = kNoValue;  // the statistics: kNoValue when not written
  int axis = 0;
  float epsilon = 0;
  std::string source;  // "LayerNormalization", or the pattern's
};

LayerNormOperands operands_of(const StepContext& context) {
  const Node& node = context.node();
  LayerNormOperands operands;
  if (node.op() == "LayerNormalization") {
    operands.x = node.inputs.at(0);
    operands.scale = node.inputs.at(1);
    operands.bias = node.inputs.size() > 2 ? node.inputs[2] : kNoValue;
    operands.y = node.outputs[0];
    if (node.outputs.size() == 3) {
      operands.mean = node.outputs[1];
      operands.inverse_stddev = node.outputs[2];
    }
    operands.axis = normalize_axis(node.attrs.get_int("axis"), context.type(operands.x).shape.rank());
    operands.epsilon = node.attrs.get_float("epsilon");
    operands.source = "LayerNormalization";
    return operands;
  }
  const std::optional<LayerNormPattern>& pattern = context.step.layer_norm_ops;
  PET_CHECK(pattern.has_value(), "a layer_norm step that is neither a LayerNormalization nor a grouped pattern");
  operands.x = pattern->x;
  operands.scale = pattern->scale;
  operands.bias = pattern->bias;
  operands.y = pattern->output;
  operands.axis = pattern->axis;
  operands.epsilon = pattern->epsilon;
  operands.source = fmt::format("layer normalization in {} standard ops", pattern->nodes.size());
  return operands;
}

}  // namespace

GeneratedKernel generate_layer_norm(const StepContext& context) {
  LayerNormOperands operands = operands_of(context);
  const TensorType& x = context.type(operands.x);
  const Shape& scale = context.type(operands.scale).shape;
  bool has_bias = operands.bias != kNoValue;
  bool with_statistics = operands.mean != kNoValue;
  auto axis = static_cast<size_t>(operands.axis);
  int64_t rows = product(x.shape.dims(), 0, axis), width = product(x.shape.dims(), axis);
  int64_t block = reduction_block(width);
  TemplateKernel kernel;
  kernel.family = "layer_norm";
  kernel.summary = fmt::format("{} of {} from axis {}{}{}", operands.source, x.to_string(), axis,
                               has_bias ? ", with bias" : "", with_statistics ? ", with statistics" : "");
  kernel.constants = {index_constant("kRows", rows),       index_constant("kWidth", width),
                      index_constant("kBlock", block),     float_constant("kEpsilon", operands.epsilon),
                      bool_constant("kHasBias", has_bias), bool_constant("kWithStatistics", with_statistics)};
  kernel.functions =
      broadcast_offset_function("scale_offset", &scale, x.shape, axis) +
      broadcast_offset_function("bias_offset", has_bias ? &context.type(operands.bias).shape : nullptr, x.shape, axis);
  kernel.libraries = {"block_reduce"};
  kernel.kernel_template = "layer_norm";
  kernel.arguments = {{operands.x, ArgumentAccess::read},          {operands.scale, ArgumentAccess::read},
                      {operands.bias, ArgumentAccess::read},       {operands.y, ArgumentAccess::write},
                      {operands.mean, ArgumentAccess::write},      {operands.inverse_stddev, ArgumentAccess::write}};
  kernel.launch = block_per_item_launch(rows, block);
  kernel.largest = x.shape.numel();
  return template_kernel(kernel);
}

}  // namespace pet::gpu::codegen
