// The pad family: each output element finds its input coordinates (the output's less the front
// pads), then takes the fill value (constant), the nearest edge (edge) or the mirror image
// (reflect) where a coordinate falls outside, as core/ops/pad.cpp's axis_source does.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {
namespace {

struct PadAxis {
  int64_t input = 1, output = 1, before = 0, after = 0;
  bool padded() const { return before != 0 || after != 0; }
};

// Neighbouring axes without pads move together, so they merge into one (fewer divisions); unit
// axes without pads are left out.
std::vector<PadAxis> pad_axes(const Shape& input, const std::vector<int64_t>& pads) {
  int rank = input.rank();
  std::vector<PadAxis> axes;
  for (int d = 0; d < rank; ++d) {
    auto a = static_cast<size_t>(d);
    PadAxis axis{input[d], input[d] + pads[a] + pads[a + static_cast<size_t>(rank)], pads[a],
                 pads[a + static_cast<size_t>(rank)]};
    if (!axis.padded() && axis.input == 1) continue;  // coordinate 0 on both sides: reads nothing
    if (!axes.empty() && !axes.back().padded() && !axis.padded()) {
      axes.back().input *= axis.input;
      axes.back().output *= axis.output;
    } else {
      axes.push_back(axis);
    }
  }
  return axes;
}

// Only a front pad reaches below input coordinate 0, and only a back pad past the input's end.
bool reaches_below(const PadAxis& axis) { return axis.before > 0; }
bool reaches_past(const PadAxis& axis) { return axis.after > 0; }

// The input coordinate s<d> that output coordinate c<d> of a padded axis reads; for edge and
// reflect already brought inside (a clamp, or a mirror about the first and last element).
std::string source_coordinate(const PadAxis& axis, size_t d, const std::string& mode) {
  std::string shifted = linear_combination({{fmt::format("c{}", d), 1}}, -axis.before);
  if (mode == "constant" || (!reaches_below(axis) && !reaches_past(axis)))
    return fmt::format("    const index s{} = {};\n", d, shifted);
  std::string r = fmt::format("r{}", d);
  std::string chosen = r;
  if (reaches_past(axis)) {
    std::string past =
        mode == "edge" ? std::to_string(axis.input - 1) : fmt::format("{} - {}", 2 * (axis.input - 1), r);
    chosen = fmt::format("{} >= {} ? {} : {}", r, axis.input, past, r);
  }
  if (reaches_below(axis))
    chosen = fmt::format("{} < 0 ? {} : {}", r, mode == "edge" ? "0" : "-" + r,
                         reaches_past(axis) ? "(" + chosen + ")" : chosen);
  return fmt::format("    const index {} = {};\n    const index s{} = {};\n", r, shifted, d, chosen);
}

// Where a constant pad reads the input rather than the fill value: "s1 >= 0 && s1 < 5".
std::vector<std::string> inside_tests(const PadAxis& axis, size_t d) {
  std::vector<std::string> tests;
  if (reaches_below(axis)) tests.push_back(fmt::format("s{} >= 0", d));
  if (reaches_past(axis)) tests.push_back(fmt::format("s{} < {}", d, axis.input));
  return tests;
}

}  // namespace

GeneratedKernel generate_pad(const StepContext& context) {
  const Node& node = context.node();
  const TensorType& input = context.type(node.inputs.at(0));
  const TensorType& output = context.type(node.outputs.at(0));
  const std::string& mode = node.attrs.get_string("mode");
  std::vector<PadAxis> axes = pad_axes(input.shape, node.attrs.get_ints("pads"));
  std::vector<int64_t> output_dims, input_dims;
  for (const PadAxis& axis : axes) {
    output_dims.push_back(axis.output);
    input_dims.push_back(axis.input);
  }
  std::vector<int64_t> input_strides = row_major_strides(input_dims);
  std::string body;
  std::vector<std::string> inside;
  std::vector<std::pair<std::string, int64_t>> offset;
  for (size_t d = 0; d < axes.size(); ++d) {
    std::string c = fmt::format("c{}", d);
    body += fmt::format("    const index {} = {};\n", c, coordinate("i", output_dims, d));
    if (!axes[d].padded()) {
      offset.emplace_back(c, input_strides[d]);
      continue;
    }
    body += source_coordinate(axes[d], d, mode);
    if (mode == "constant")
      for (std::string& test : inside_tests(axes[d], d)) inside.push_back(std::move(test));
    offset.emplace_back(fmt::format("s{}", d), input_strides[d]);
  }
  std::string read = fmt::format("in0[{}]", linear_combination(offset));
  if (inside.empty())
    body += fmt::format("    out0[i] = {};\n", read);
  else
    body += fmt::format("    if ({}) out0[i] = {};\n    else out0[i] = {};\n", fmt::join(inside, " && "), read,
                        store_as_memory(input.dtype, typed_literal(input.dtype, node.attrs.get_float("value"))));
  Parameters parameters = step_parameters(context);
  return grid_stride_kernel({"pad", fmt::format("{} pads of {} -> {}", mode, input.to_string(), output.to_string()), "",
                             parameters.declarations, parameters.arguments, output.shape.numel(),
                             largest_value(context), body});
}

}  // namespace pet::gpu::codegen
