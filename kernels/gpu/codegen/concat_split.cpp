// The concat and split families (the copy forms the plan could not turn into views): the
// concatenated tensor seen as [outer, along, inner] around the axis, each piece a run of `along`.
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {
namespace {

// A piece of the concatenated tensor: `length` positions along the axis from `start`.
struct Piece {
  size_t parameter = 0;  // in<parameter> (concat) or out<parameter> (split)
  int64_t start = 0, length = 0;
};

struct AxisView {
  int64_t outer = 1, along = 1, inner = 1;
};

AxisView axis_view(const Shape& shape, int64_t axis_attribute) {
  int axis = normalize_axis(axis_attribute, shape.rank());
  PET_CHECK(axis >= 0, "a concat or split axis out of range");
  auto a = static_cast<size_t>(axis);
  return {product(shape.dims(), 0, a), shape[axis], product(shape.dims(), a + 1)};
}

// The concatenated tensor's element i as (outer, along, inner): declarations, and the three names
// ("0" for a coordinate that is always 0).
struct AxisCoordinates {
  std::string declarations;
  std::vector<std::string> names = {"outer", "along", "inner"};
};

AxisCoordinates axis_coordinates(const AxisView& view) {
  AxisCoordinates coordinates;
  coordinates.declarations = declare_coordinates("i", {view.outer, view.along, view.inner}, coordinates.names);
  return coordinates;
}

// Element (outer, along, inner) of the concatenated tensor inside its piece.
std::string offset_in_piece(const Piece& piece, const AxisView& view, const AxisCoordinates& at) {
  return linear_combination({{at.names[0], piece.length * view.inner}, {at.names[1], view.inner}, {at.names[2], 1}},
                            -piece.start * view.inner);
}

// "if (along < 64) X0; else if (along < 96) X1; else X2;" over the non-empty pieces.
template <typename Copy>
std::string choose_piece(const std::vector<Piece>& pieces, const std::string& along, Copy copy) {
  std::vector<const Piece*> present;
  for (const Piece& piece : pieces)
    if (piece.length > 0) present.push_back(&piece);
  std::string text;
  for (size_t k = 0; k < present.size(); ++k) {
    const Piece& piece = *present[k];
    bool last = k + 1 == present.size();
    std::string test = last ? "" : fmt::format("if ({} < {}) ", along, piece.start + piece.length);
    text += fmt::format("    {}{}{};\n", k == 0 ? "" : "else ", test, copy(piece));
  }
  return text;
}

}  // namespace

GeneratedKernel generate_concat(const StepContext& context) {
  const Node& node = context.node();
  const TensorType& output = context.type(node.outputs.at(0));
  AxisView view = axis_view(output.shape, node.attrs.get_int("axis"));
  int axis = normalize_axis(node.attrs.get_int("axis"), output.shape.rank());
  std::vector<Piece> pieces;
  int64_t start = 0;
  for (ValueId input : node.inputs) {
    int64_t length = context.type(input).shape[axis];
    pieces.push_back({context.input_position(input), start, length});
    start += length;
  }
  AxisCoordinates at = axis_coordinates(view);
  std::string body = at.declarations + choose_piece(pieces, at.names[1], [&](const Piece& piece) {
                       return fmt::format("out0[i] = in{}[{}]", piece.parameter, offset_in_piece(piece, view, at));
                     });
  Parameters parameters = step_parameters(context);
  return grid_stride_kernel(
      {"concat", fmt::format("{} inputs along axis {} -> {}", node.inputs.size(), axis, output.to_string()), "",
       parameters.declarations, parameters.arguments, output.shape.numel(), largest_value(context), body});
}

GeneratedKernel generate_split(const StepContext& context) {
  const Node& node = context.node();
  const TensorType& input = context.type(node.inputs.at(0));
  AxisView view = axis_view(input.shape, node.attrs.get_int("axis"));
  int axis = normalize_axis(node.attrs.get_int("axis"), input.shape.rank());
  std::vector<Piece> pieces;
  int64_t start = 0;
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    int64_t length = context.type(node.outputs[k]).shape[axis];
    pieces.push_back({k, start, length});
    start += length;
  }
  AxisCoordinates at = axis_coordinates(view);
  std::string body = at.declarations + choose_piece(pieces, at.names[1], [&](const Piece& piece) {
                       return fmt::format("out{}[{}] = in0[i]", piece.parameter, offset_in_piece(piece, view, at));
                     });
  Parameters parameters = step_parameters(context);
  return grid_stride_kernel(
      {"split", fmt::format("{} along axis {} into {} outputs", input.to_string(), axis, node.outputs.size()), "",
       parameters.declarations, parameters.arguments, input.shape.numel(), largest_value(context), body});
}

}  // namespace pet::gpu::codegen
