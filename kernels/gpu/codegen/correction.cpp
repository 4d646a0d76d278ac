// The correction family: an Overwrite or LayoutOverwrite node as one kernel over its output. Each
// element takes the last patch whose box holds it (as the last Overwrite would have written it),
// else the base (read as is, or through the Layout's strided view), then the fused ReLU where the
// node has one. The patches themselves are computed by the steps before it.
#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/fused_activation.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {
namespace {

// Patch i's offsets: Overwrite's `offsets`, or LayoutOverwrite's i-th run of `rank` of them.
std::vector<int64_t> patch_offsets(const Node& node, int patch, int rank) {
  const auto& offsets = node.attrs.get_ints("offsets");
  auto begin = offsets.begin() + static_cast<int64_t>(patch) * rank;
  return {begin, begin + rank};
}

// The base's element for output index i: LayoutOverwrite's Layout view (expanded, then permuted),
// Overwrite's same-shaped base.
std::string base_offset(const Node& node) {
  if (node.op() != "LayoutOverwrite") return "i";
  return strided_offset(permuted_view(node.attrs.get_ints("expanded"), node.attrs.get_ints("perm")), "i");
}

// "if (inside the box) value = in<k>[local];" for one patch of an output of `dims`, whose
// coordinates are declared as `coordinates` ("0" along a unit axis). Bounds an axis cannot cross
// are left out; a patch covering the whole output needs no test.
std::string patch_statement(const std::vector<int64_t>& offsets, const Shape& patch, size_t input,
                            const std::vector<int64_t>& dims, const std::vector<std::string>& coordinates) {
  std::vector<std::string> conditions;
  std::vector<std::pair<std::string, int64_t>> terms;
  std::vector<int64_t> strides = row_major_strides(patch.dims());
  int64_t constant = 0;
  for (size_t d = 0; d < offsets.size(); ++d) {
    const std::string& c = coordinates[d];
    int64_t end = offsets[d] + patch[static_cast<int>(d)];
    if (c == "0") continue;  // a unit axis: offset 0, extent 1
    if (offsets[d] > 0) conditions.push_back(fmt::format("{} >= {}", c, offsets[d]));
    if (end < dims[d]) conditions.push_back(fmt::format("{} < {}", c, end));
    terms.push_back({c, strides[d]});
    constant -= offsets[d] * strides[d];
  }
  std::string read = fmt::format("value = in{}[{}];", input, linear_combination(terms, constant));
  if (conditions.empty()) return "    " + read + "\n";
  std::string inside;
  for (const std::string& condition : conditions) inside += (inside.empty() ? "" : " && ") + condition;
  return fmt::format("    if ({}) {}\n", inside, read);
}

}  // namespace

GeneratedKernel generate_correction(const StepContext& context) {
  PET_CHECK(context.step.nodes.size() == 1, "a correction step is its Overwrite or LayoutOverwrite node alone");
  const Node& node = context.node();
  const std::string& activation = ops::fused_activation(node.attrs);
  if (activation != kNoActivation && activation != "relu")
    refuse_node(node, fmt::format("its fused activation '{}' is none the correction kernel applies", activation),
                "a fused relu");
  const TensorType& output = context.type(node.outputs[0]);
  if (output.dtype != DType::f32) refuse_node(node, "its element type is not f32", "f32 corrections");
  std::vector<int64_t> dims = output.shape.dims();
  std::vector<std::string> coordinates;
  for (size_t d = 0; d < dims.size(); ++d) coordinates.push_back(fmt::format("c{}", d));
  std::string body = declare_coordinates("i", dims, coordinates);
  body += fmt::format("    float value = in{}[{}];\n", context.input_position(node.inputs[0]), base_offset(node));
  int rank = output.shape.rank();
  for (int patch = 0; patch + 1 < static_cast<int>(node.inputs.size()); ++patch) {
    ValueId id = node.inputs[static_cast<size_t>(patch) + 1];
    body += patch_statement(patch_offsets(node, patch, rank), context.type(id).shape, context.input_position(id), dims,
                            coordinates);
  }
  body += activation == "relu" ? "    out0[i] = value > 0.0f ? value : 0.0f;\n" : "    out0[i] = value;\n";
  Parameters parameters = step_parameters(context);
  return grid_stride_kernel({"correction", fmt::format("{} -> {}", node.op(), output.to_string()), "",
                             parameters.declarations, parameters.arguments, output.shape.numel(),
                             largest_value(context), body});
}

}  // namespace pet::gpu::codegen
