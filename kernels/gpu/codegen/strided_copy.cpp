// The strided-copy family: Transpose, Layout, Slice, Expand and the copy of a view that must own
// its bytes all write their output densely from one strided read of their input, as the reference
// kernels do through core/ops/strided_copy.h; only the view differs.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {
namespace {

// Starts are canonical (clamped, non-negative), steps may be negative.
StridedAccess slice_view(const Shape& input, const Shape& output, const Attributes& attrs) {
  const auto& starts = attrs.get_ints("starts");
  const auto& steps = attrs.get_ints("steps");
  std::vector<int64_t> strides = row_major_strides(input.dims());
  StridedAccess view{output.dims(), {}, 0};
  for (size_t a = 0; a < strides.size(); ++a) {
    view.offset += starts[a] * strides[a];
    view.strides.push_back(strides[a] * steps[a]);
  }
  return view;
}

StridedAccess view_of(const StepContext& context) {
  const Node& node = context.node();
  const Shape& input = context.type(node.inputs.at(0)).shape;
  const Shape& output = context.type(node.outputs.at(0)).shape;
  switch (context.step.kind) {
    case StepKind::transpose:  // output axis a reads input axis perm[a]
      return permuted_view(input.dims(), node.attrs.get_ints("perm"));
    case StepKind::layout:  // the input split into `expanded` factors, permuted (merged output dims keep the order)
      return permuted_view(node.attrs.get_ints("expanded"), node.attrs.get_ints("perm"));
    case StepKind::slice:
      return slice_view(input, output, node.attrs);
    case StepKind::expand:
      return {output.dims(), broadcast_strides(input, output), 0};
    case StepKind::copy:
      return {output.dims(), row_major_strides(output.dims()), 0};  // a view: the same bytes
    default:
      break;
  }
  PET_CHECK(false, "a strided copy of a step kind that is none");
  return {};
}

}  // namespace

GeneratedKernel generate_strided_copy(const StepContext& context) {
  PET_CHECK(context.step.nodes.size() == 1 && context.step.inputs.size() == 1 && context.step.outputs.size() == 1,
            "a data-movement step is one node with one input and one output");
  const Node& node = context.node();
  const TensorType& output = context.type(node.outputs[0]);
  StridedAccess view = view_of(context);
  PET_CHECK(product(view.dims) == output.shape.numel(), "a view that does not cover its output");
  Parameters parameters = step_parameters(context);
  std::string family = to_string(context.step.kind);
  return grid_stride_kernel(
      {family, fmt::format("{} {} -> {}", node.op(), context.type(node.inputs[0]).to_string(), output.to_string()), "",
       parameters.declarations, parameters.arguments, output.shape.numel(), largest_value(context),
       fmt::format("    out0[i] = in0[{}];\n", strided_offset(view, "i"))});
}

}  // namespace pet::gpu::codegen
