// Softmax and LogSoftmax steps: the tensor as [outer, count, inner] around the axis (with
// include_trailing_axes = 1 the axis and every later one form the line, as before opset 13), one
// block per line of the hand-written handwritten/softmax.cu.
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/handwritten.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {

GeneratedKernel generate_softmax(const StepContext& context) {
  const Node& node = context.node();
  if (node.op() != "Softmax" && node.op() != "LogSoftmax")
    refuse_node(node, "the softmax kernel computes no other op", "Softmax and LogSoftmax");
  const TensorType& x = context.type(node.inputs.at(0));
  const std::vector<int64_t>& dims = x.shape.dims();
  auto axis = static_cast<size_t>(normalize_axis(node.attrs.get_int("axis"), x.shape.rank()));
  bool trailing = node.attrs.get_int("include_trailing_axes") != 0;
  int64_t count = trailing ? product(dims, axis) : dims[axis];
  int64_t inner = trailing ? 1 : product(dims, axis + 1);
  int64_t lines = product(dims, 0, axis) * inner;
  int64_t block = reduction_block(count);
  TemplateKernel kernel;
  kernel.family = "softmax";
  kernel.summary =
      fmt::format("{} of {} along axis {}{}", node.op(), x.to_string(), axis, trailing ? " and every later one" : "");
  kernel.constants = {index_constant("kLines", lines), index_constant("kCount", count), index_constant("kInner", inner),
                      index_constant("kBlock", block), bool_constant("kLogarithmic", node.op() == "LogSoftmax")};
  kernel.libraries = {"block_reduce"};
  kernel.kernel_template = "softmax";
  kernel.arguments = {{node.inputs[0], ArgumentAccess::read}, {node.outputs.at(0), ArgumentAccess::write}};
  kernel.launch = block_per_item_launch(lines, block);
  kernel.largest = x.shape.numel();
  return template_kernel(kernel);
}

}  // namespace pet::gpu::codegen
