// LayerNormalization steps: rows of the axis and every later dim, one block per row of the
// hand-written handwritten/layer_norm.cu; scale and bias offsets generated from their broadcast.
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

}  // namespace

GeneratedKernel generate_layer_norm(const StepContext& context) {
  const Node& node = context.node();
  const TensorType& x = context.type(node.inputs.at(0));
  const Shape& scale = context.type(node.inputs.at(1)).shape;
  bool has_bias = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
  bool with_statistics = node.outputs.size() == 3;
  auto axis = static_cast<size_t>(normalize_axis(node.attrs.get_int("axis"), x.shape.rank()));
  int64_t rows = product(x.shape.dims(), 0, axis), width = product(x.shape.dims(), axis);
  int64_t block = reduction_block(width);
  TemplateKernel kernel;
  kernel.family = "layer_norm";
  kernel.summary = fmt::format("LayerNormalization of {} from axis {}{}{}", x.to_string(), axis,
                               has_bias ? ", with bias" : "", with_statistics ? ", with statistics" : "");
  kernel.constants = {index_constant("kRows", rows),       index_constant("kWidth", width),
                      index_constant("kBlock", block),     float_constant("kEpsilon", node.attrs.get_float("epsilon")),
                      bool_constant("kHasBias", has_bias), bool_constant("kWithStatistics", with_statistics)};
  kernel.functions =
      broadcast_offset_function("scale_offset", &scale, x.shape, axis) +
      broadcast_offset_function("bias_offset", has_bias ? &context.type(node.inputs[2]).shape : nullptr, x.shape, axis);
  kernel.libraries = {"block_reduce"};
  kernel.kernel_template = "layer_norm";
  kernel.arguments = {{node.inputs[0], ArgumentAccess::read},
                      {node.inputs[1], ArgumentAccess::read},
                      {has_bias ? node.inputs[2] : kNoValue, ArgumentAccess::read},
                      {node.outputs[0], ArgumentAccess::write},
                      {with_statistics ? node.outputs[1] : kNoValue, ArgumentAccess::write},
                      {with_statistics ? node.outputs[2] : kNoValue, ArgumentAccess::write}};
  kernel.launch = block_per_item_launch(rows, block);
  kernel.largest = x.shape.numel();
  return template_kernel(kernel);
}

}  // namespace pet::gpu::codegen
