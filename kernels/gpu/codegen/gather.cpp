// The gather family: the output seen as [outer, position, inner], where `position` runs over the
// indices tensor; each element copies data[outer, indices[position], inner].
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {

GeneratedKernel generate_gather(const StepContext& context) {
  const Node& node = context.node();
  const TensorType& data = context.type(node.inputs.at(0));
  const TensorType& indices = context.type(node.inputs.at(1));
  const TensorType& output = context.type(node.outputs.at(0));
  PET_CHECK(indices.dtype == DType::i64, "Gather's indices are i64");
  int axis = normalize_axis(node.attrs.get_int("axis"), data.shape.rank());
  auto a = static_cast<size_t>(axis);
  int64_t outer = product(data.shape.dims(), 0, a), length = data.shape[axis];
  int64_t inner = product(data.shape.dims(), a + 1), positions = indices.shape.numel();
  size_t data_parameter = context.input_position(node.inputs[0]);
  size_t indices_parameter = context.input_position(node.inputs[1]);
  // Negative indices count from the end. The CPU executor refuses an index out of range, which a
  // kernel cannot report: it clamps, so a bad index never reads outside `data`.
  std::vector<std::string> names = {"outer", "position", "inner"};
  std::string body = declare_coordinates("i", {outer, positions, inner}, names);
  body += fmt::format(
      "    long long taken = in{}[{}];\n"
      "    taken = taken < 0 ? taken + {} : taken;\n"
      "    taken = taken < 0 ? 0 : (taken >= {} ? {} : taken);\n"
      "    out0[i] = in{}[{}];\n",
      indices_parameter, names[1], length, length, length - 1, data_parameter,
      linear_combination({{names[0], length * inner}, {"taken", inner}, {names[2], 1}}));
  Parameters parameters = step_parameters(context);
  return grid_stride_kernel(
      {"gather",
       fmt::format("{} at {} along axis {} -> {}", data.to_string(), indices.to_string(), axis, output.to_string()), "",
       parameters.declarations, parameters.arguments, output.shape.numel(), largest_value(context), body});
}

}  // namespace pet::gpu::codegen
