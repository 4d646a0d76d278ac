// Layout sinking below corrections: boxes are taken back through the layout element by element
// (cut into pieces where the layout separates neighbours), so a rewrite happens only where every
// patch and slice is made of plain boxes on both sides.
#include "search/passes/sink_layouts_below_corrections.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/ops/fused_activation.h"
#include "core/ops/layout.h"
#include "core/ops/linear_facets.h"
#include "core/ops/patch_lowering.h"

namespace pet {
namespace {

// A box: where it starts and its size on every axis.
struct Box {
  std::vector<int64_t> start;
  std::vector<int64_t> size;
};

// Where the Layout `attrs` (for inputs of shape `input`) puts the element at `index`.
void layout_position(const Attributes& attrs, const Shape& input, const int64_t* index, int64_t* out) {
  const auto& expanded = attrs.get_ints("expanded");
  const auto& perm = attrs.get_ints("perm");
  const auto& groups = attrs.get_ints("groups");
  int64_t flat = ops::ravel_index(index, input);
  std::vector<int64_t> factor(expanded.size());
  for (size_t i = expanded.size(); i-- > 0;) {
    factor[i] = flat % expanded[i];
    flat /= expanded[i];
  }
  size_t next = 0;
  for (size_t axis = 0; axis < groups.size(); ++axis) {
    int64_t position = 0;
    for (int64_t g = 0; g < groups[axis]; ++g, ++next) {
      auto source = static_cast<size_t>(perm[next]);
      position = position * expanded[source] + factor[source];
    }
    out[axis] = position;
  }
}

// The box `box` of the layout's input occupies in its output when the layout keeps it a box with
// its elements in the same row-major order; nullopt otherwise. Walks every element of the box.
std::optional<Box> box_through_layout(const Attributes& attrs, const Shape& input, const Box& box) {
  Shape output = ops::layout_output_shape(attrs);
  size_t in_rank = box.start.size(), out_rank = static_cast<size_t>(output.rank());
  Shape box_shape(box.size);
  int64_t count = box_shape.numel();
  if (count == 0) return std::nullopt;
  std::vector<int64_t> local(in_rank), index(in_rank), first(out_rank), last(out_rank), at(out_rank);
  auto position_of = [&](int64_t element, int64_t* out) {
    ops::unravel_index(element, box_shape, local.data());
    for (size_t d = 0; d < in_rank; ++d) index[d] = box.start[d] + local[d];
    layout_position(attrs, input, index.data(), out);
  };
  position_of(0, first.data());
  position_of(count - 1, last.data());
  Box mapped{first, std::vector<int64_t>(out_rank)};
  for (size_t d = 0; d < out_rank; ++d) {
    mapped.size[d] = last[d] - first[d] + 1;
    if (mapped.size[d] <= 0) return std::nullopt;
  }
  Shape mapped_shape(mapped.size);
  if (mapped_shape.numel() != count) return std::nullopt;
  std::vector<int64_t> expected(out_rank);
  for (int64_t element = 1; element + 1 < count; ++element) {
    position_of(element, at.data());
    ops::unravel_index(element, mapped_shape, expected.data());
    for (size_t d = 0; d < out_rank; ++d)
      if (at[d] != first[d] + expected[d]) return std::nullopt;
  }
  return mapped;
}

// A box of the layout's input cut where the layout separates its neighbours (a seam box that
// straddles two images a spatial split sends to different batch entries), each piece with the
// box it occupies in the output.
struct Piece {
  Box in_input;
  Box in_output;
};
struct Pieces {
  std::vector<Piece> pieces;
  int axis = 0;  // the input axis the box was cut along
};

// At most this many pieces per box: more would make the correction a scatter of tiny writes.
constexpr size_t kMaxPieces = 8;

// Whether `b` is `a` one step further along exactly one axis.
std::optional<size_t> unit_step(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::optional<size_t> moved;
  for (size_t d = 0; d < a.size(); ++d) {
    if (a[d] == b[d]) continue;
    if (b[d] != a[d] + 1 || moved) return std::nullopt;
    moved = d;
  }
  return moved;
}

// The runs of `box` along `axis` whose neighbours stay neighbours after the layout.
std::vector<std::pair<int64_t, int64_t>> runs_along(const Attributes& attrs, const Shape& input, const Box& box, size_t axis) {
  std::vector<std::pair<int64_t, int64_t>> runs;  // (start, length)
  std::vector<int64_t> index = box.start, previous, position(static_cast<size_t>(ops::layout_output_shape(attrs).rank()));
  int64_t run_axis = -1;  // the output axis the current run advances along, once it has two elements
  for (int64_t c = box.start[axis]; c < box.start[axis] + box.size[axis]; ++c) {
    index[axis] = c;
    layout_position(attrs, input, index.data(), position.data());
    std::optional<size_t> step = previous.empty() ? std::nullopt : unit_step(previous, position);
    bool continues = step && (run_axis < 0 || run_axis == static_cast<int64_t>(*step));
    if (continues) {
      ++runs.back().second;
      run_axis = static_cast<int64_t>(*step);
    } else {
      runs.push_back({c, 1});
      run_axis = -1;
    }
    previous = position;
  }
  return runs;
}

// The box as one piece when the layout keeps it a box, else cut along the first axis whose runs
// each stay boxes; nullopt when no such cut exists.
std::optional<Pieces> pieces_through_layout(const Attributes& attrs, const Shape& input, const Box& box) {
  if (std::optional<Box> whole = box_through_layout(attrs, input, box)) return Pieces{{{box, *whole}}, 0};
  for (size_t axis = 0; axis < box.start.size(); ++axis) {
    if (box.size[axis] < 2) continue;
    std::vector<std::pair<int64_t, int64_t>> runs = runs_along(attrs, input, box, axis);
    if (runs.size() < 2 || runs.size() > kMaxPieces) continue;
    Pieces cut{{}, static_cast<int>(axis)};
    for (const auto& [start, length] : runs) {
      Box piece = box;
      piece.start[axis] = start;
      piece.size[axis] = length;
      std::optional<Box> mapped = box_through_layout(attrs, input, piece);
      if (!mapped) break;
      cut.pieces.push_back({piece, *mapped});
    }
    if (cut.pieces.size() == runs.size()) return cut;
  }
  return std::nullopt;
}

// The Layout part of a LayoutOverwrite's attributes.
Attributes layout_part(const Attributes& attrs) {
  return ops::layout_attrs(attrs.get_ints("expanded"), attrs.get_ints("perm"), attrs.get_ints("groups"));
}

bool is_identity_layout(const Attributes& layout, const Shape& input) {
  return ops::layouts_move_alike(input, layout, ops::layout_identity(input));
}

// Whether the Layout node `reader` (reading a value of shape `shape`) moves every element as `back` does.
bool undoes(const Node& reader, const Attributes& back, const Shape& shape) {
  if (reader.op() != "Layout" || reader.inputs.size() != 1) return false;
  if (ops::fused_activation(reader.attrs) != "none") return false;
  return ops::layouts_move_alike(shape, reader.attrs, back);
}

// A Slice's box, when it reads `value` with unit steps and every bound inside the shape.
std::optional<Box> slice_box(const Node& slice, ValueId value, const Shape& shape) {
  if (slice.op() != "Slice" || slice.inputs.size() != 1 || slice.inputs[0] != value) return std::nullopt;
  const auto& starts = slice.attrs.get_ints("starts");
  const auto& ends = slice.attrs.get_ints("ends");
  const auto& steps = slice.attrs.get_ints("steps");
  auto rank = static_cast<size_t>(shape.rank());
  if (starts.size() != rank || ends.size() != rank || steps.size() != rank) return std::nullopt;
  Box box{starts, std::vector<int64_t>(rank)};
  for (size_t d = 0; d < rank; ++d) {
    if (steps[d] != 1 || starts[d] < 0 || ends[d] > shape.dims()[d] || ends[d] <= starts[d]) return std::nullopt;
    box.size[d] = ends[d] - starts[d];
  }
  return box;
}

struct SliceRead {
  NodeId node;
  Pieces in_base;  // the slice's box in the corrected mutant's own layout, in pieces
};

// What a rewrite of one LayoutOverwrite needs, found before anything changes.
struct Plan {
  NodeId node;
  Attributes back;            // the LayoutOverwrite's output layout back to its input's
  std::vector<Pieces> patches;  // each patch's box in the input's layout, in pieces
  std::vector<SliceRead> slices;
};

std::optional<Plan> plan_rewrite(const Graph& graph, const std::vector<std::vector<NodeId>>& users, NodeId n) {
  const Node& node = graph.node(n);
  bool corrected = node.op() == "LayoutOverwrite" && node.inputs.size() >= 2;
  bool plain = node.op() == "Layout" && node.inputs.size() == 1 && ops::fused_activation(node.attrs) == "none";
  if (!(corrected || plain) || node.outputs.size() != 1) return std::nullopt;
  ValueId result = node.outputs[0];
  const std::vector<NodeId>& readers = users[static_cast<size_t>(result)];
  if (graph.is_output(result) || readers.empty()) return std::nullopt;
  const Shape& base = graph.value(node.inputs[0]).type.shape;
  const Shape& shape = graph.value(result).type.shape;
  Attributes layout = layout_part(node.attrs);
  if (is_identity_layout(layout, base)) return std::nullopt;
  Plan plan{n, ops::layout_inverse(base, layout), {}, {}};
  auto rank = static_cast<size_t>(shape.rank());
  size_t written = 0;
  for (size_t p = 1; p < node.inputs.size(); ++p) {
    const auto& offsets = node.attrs.get_ints("offsets");
    Box box{std::vector<int64_t>(offsets.begin() + static_cast<int64_t>((p - 1) * rank),
                                 offsets.begin() + static_cast<int64_t>(p * rank)),
            graph.value(node.inputs[p]).type.shape.dims()};
    std::optional<Pieces> mapped = pieces_through_layout(plan.back, shape, box);
    if (!mapped) return std::nullopt;
    written += mapped->pieces.size();
    plan.patches.push_back(std::move(*mapped));
  }
  if (written > static_cast<size_t>(node.def->max_inputs - 1)) return std::nullopt;
  for (NodeId reader : readers) {
    const Node& read = graph.node(reader);
    if (undoes(read, plan.back, shape)) continue;
    std::optional<Box> box = slice_box(read, result, shape);
    std::optional<Pieces> mapped = box ? pieces_through_layout(plan.back, shape, *box) : std::nullopt;
    if (!mapped) return std::nullopt;
    plan.slices.push_back({reader, std::move(*mapped)});
  }
  if (plain && plan.slices.empty()) return std::nullopt;  // the layout chain elimination's work
  return plan;
}

std::vector<int64_t> box_end(const Box& box) {
  std::vector<int64_t> end(box.start.size());
  for (size_t d = 0; d < end.size(); ++d) end[d] = box.start[d] + box.size[d];
  return end;
}

ValueId slice_of(Graph& graph, ValueId value, const Box& box, const std::string& name) {
  return graph.add_node1("Slice", {{"starts", box.start}, {"ends", box_end(box)},
                                   {"steps", std::vector<int64_t>(box.start.size(), 1)}}, {value}, name);
}

// `value` as a tensor of `dims` (a Reshape when its shape differs).
ValueId reshaped(Graph& graph, ValueId value, const std::vector<int64_t>& dims, const std::string& name) {
  if (graph.value(value).type.shape.dims() == dims) return value;
  return graph.add_node1("Reshape", {{"shape", dims}}, {value}, name);
}

// The corrected mutant's output written in its own layout: a LayoutOverwrite with the identity
// layout over the mutant (the Relu moved onto it and the patches), each patch cut into its pieces.
ValueId write_in_layout(Graph& graph, const Node& node, const Plan& plan) {
  bool relu = ops::fused_activation(node.attrs) == "relu";
  auto activated = [&](ValueId value, const std::string& name) {
    return relu ? graph.add_node1("Relu", {}, {value}, name) : value;
  };
  std::vector<ValueId> inputs{activated(node.inputs[0], node.name + "_base_relu")};
  std::vector<int64_t> offsets;
  for (size_t p = 0; p < plan.patches.size(); ++p) {
    std::string prefix = fmt::format("{}_patch{}", node.name, p);
    ValueId patch = activated(node.inputs[p + 1], prefix + "_relu");
    const std::vector<Piece>& pieces = plan.patches[p].pieces;
    for (size_t k = 0; k < pieces.size(); ++k) {
      ValueId piece = patch;
      if (pieces.size() > 1) {
        Box local = pieces[k].in_input;  // the piece within the patch (the first piece starts where it does)
        for (size_t d = 0; d < local.start.size(); ++d) local.start[d] -= pieces[0].in_input.start[d];
        piece = slice_of(graph, patch, local, fmt::format("{}_piece{}", prefix, k));
      }
      inputs.push_back(reshaped(graph, piece, pieces[k].in_output.size, fmt::format("{}_reshape{}", prefix, k)));
      offsets.insert(offsets.end(), pieces[k].in_output.start.begin(), pieces[k].in_output.start.end());
    }
  }
  const Shape& base = graph.value(node.inputs[0]).type.shape;
  Attributes attrs = ops::layout_identity(base);
  attrs.set("offsets", offsets);
  if (node.attrs.has(ops::kLoweringAttr)) attrs.set(ops::kLoweringAttr, node.attrs.get_string(ops::kLoweringAttr));
  return graph.add_node1("LayoutOverwrite", std::move(attrs), inputs, node.name + "_in_layout");
}

void rewrite(Graph& graph, const Plan& plan) {
  Node node = graph.node(plan.node);
  bool corrected = node.op() == "LayoutOverwrite";
  // a plain Layout stays (the readers that undo it cancel it); a corrected one is rebuilt below
  ValueId written = corrected ? write_in_layout(graph, node, plan) : node.inputs[0];
  ValueId laid = corrected ? graph.add_node1("Layout", layout_part(node.attrs), {written}, node.name) : kNoValue;
  std::vector<NodeId> doomed;
  std::vector<std::pair<std::string, std::string>> renames;  // (new value, the name it takes over)
  for (const SliceRead& slice : plan.slices) {
    const Node& old = graph.node(slice.node);
    ValueId old_output = old.outputs[0];
    std::string old_name = old.name;
    const std::vector<Piece>& pieces = slice.in_base.pieces;
    std::vector<ValueId> parts;
    for (size_t k = 0; k < pieces.size(); ++k) {
      std::string suffix = pieces.size() > 1 ? fmt::format("_piece{}", k) : "";
      ValueId sliced = slice_of(graph, written, pieces[k].in_output, old_name + suffix);
      parts.push_back(reshaped(graph, sliced, pieces[k].in_input.size, old_name + suffix + "_reshape"));
    }
    ValueId fitted = parts.size() == 1 ? parts[0]
                                       : graph.add_node1("Concat", {{"axis", int64_t{slice.in_base.axis}}}, parts, old_name + "_joined");
    renames.emplace_back(graph.value(fitted).name, graph.value(old_output).name);
    graph.replace_uses(old_output, fitted);
    doomed.push_back(slice.node);
  }
  if (corrected) {
    ValueId result = node.outputs[0];
    renames.emplace_back(graph.value(laid).name, graph.value(result).name);
    graph.replace_uses(result, laid);
    doomed.push_back(plan.node);
  }
  graph.remove_nodes(doomed);
  for (const auto& [from, to] : renames) graph.rename_value(*graph.find_value(from), to);
  graph.sort_topologically();
}

}  // namespace

int sink_layouts_below_corrections(Graph& graph) {
  int rewritten = 0;
  for (bool changed = true; changed;) {
    changed = false;
    auto users = graph.consumers();
    for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()); ++n) {
      std::optional<Plan> plan = plan_rewrite(graph, users, n);
      if (!plan) continue;
      rewrite(graph, *plan);
      ++rewritten;
      changed = true;
      break;
    }
  }
  return rewritten;
}

}  // namespace pet
