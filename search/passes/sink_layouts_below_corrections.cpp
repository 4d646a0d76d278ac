// Layout sinking below corrections: boxes are taken back through the layout element by element
// with the Layout op's own point facet (cut into pieces where the layout separates neighbours),
// so a rewrite happens only where every patch and slice is made of plain boxes on both sides.
#include "search/passes/sink_layouts_below_corrections.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/box_grid.h"
#include "core/error.h"
#include "core/memo.h"
#include "core/ops/fused_activation.h"
#include "core/ops/layout.h"
#include "core/ops/linear_facets.h"
#include "core/ops/patch_lowering.h"
#include "core/registry.h"

namespace pet {
namespace {

// Records the input index a point facet pulls: for a Layout, where an output element comes from.
class SourceIndex final : public FieldPuller {
 public:
  SourceIndex(int64_t* source, size_t rank) : source_(source), rank_(rank) {}
  uint64_t pull(int /*input*/, const int64_t* index) const override {
    std::copy(index, index + rank_, source_);
    return 0;
  }

 private:
  int64_t* source_;
  size_t rank_;
};

// The layout L of a LayoutOverwrite or Layout node, from m (its input) to r (its output), asked
// where an element of r lives in m (ranks at most kMaxRank, as for every value of a graph).
class LayoutMap {
 public:
  LayoutMap(Attributes layout, const TensorType& m, const TensorType& r)
      : layout_(std::move(layout)), m_(m), r_(r), source_(at_, static_cast<size_t>(m.shape.rank())) {
    PET_CHECK(m.shape.rank() <= kMaxRank, "a value of rank above kMaxRank (require_supported_rank)");
  }
  // Everything source() depends on, as text.
  std::string key() const { return fmt::format("{} {} -> {}", layout_.to_string(), m_.to_string(), r_.to_string()); }
  LayoutMap(const LayoutMap&) = delete;
  LayoutMap& operator=(const LayoutMap&) = delete;
  const Shape& m_shape() const { return m_.shape; }
  const Shape& r_shape() const { return r_.shape; }
  // The position in m of r's element at `index`, into `out` (m's rank).
  void source(const int64_t* index, int64_t* out) const {
    static const OpDef& layout_def = OpRegistry::global().get("Layout");
    const TensorType* inputs[] = {&m_};
    layout_def.eval_point(PointContext{layout_, inputs, r_, 0, index, source_});
    std::copy(at_, at_ + m_.shape.rank(), out);
  }

 private:
  Attributes layout_;
  const TensorType& m_;
  const TensorType& r_;
  mutable int64_t at_[kMaxRank] = {};
  SourceIndex source_;
};

std::vector<int64_t> box_size(const Box& box) {
  std::vector<int64_t> size(box.lo.size());
  for (size_t d = 0; d < size.size(); ++d) size[d] = box.hi[d] - box.lo[d];
  return size;
}

// The box of m that r's `box` occupies, when L keeps it a box with its elements in the same
// row-major order; nullopt otherwise. Walks every element of the box.
std::optional<Box> box_in_m(const LayoutMap& map, const Box& box) {
  Shape box_shape(box_size(box));
  int64_t count = box_shape.numel();
  if (count == 0) return std::nullopt;
  size_t r_rank = box.lo.size(), m_rank = static_cast<size_t>(map.m_shape().rank());
  std::vector<int64_t> local(r_rank), index(r_rank), first(m_rank), last(m_rank), at(m_rank), expected(m_rank);
  auto source_of = [&](int64_t element, int64_t* out) {
    ops::unravel_index(element, box_shape, local.data());
    for (size_t d = 0; d < r_rank; ++d) index[d] = box.lo[d] + local[d];
    map.source(index.data(), out);
  };
  source_of(0, first.data());
  source_of(count - 1, last.data());
  Box mapped{first, last};
  for (size_t d = 0; d < m_rank; ++d)
    if (++mapped.hi[d] <= mapped.lo[d]) return std::nullopt;
  Shape mapped_shape(box_size(mapped));
  if (mapped_shape.numel() != count) return std::nullopt;
  for (int64_t element = 1; element + 1 < count; ++element) {
    source_of(element, at.data());
    ops::unravel_index(element, mapped_shape, expected.data());
    for (size_t d = 0; d < m_rank; ++d)
      if (at[d] != first[d] + expected[d]) return std::nullopt;
  }
  return mapped;
}

// A box of r cut where L separates its neighbours (a seam box that straddles two images a
// spatial split sends to different batch entries), each piece with the box it occupies in m.
struct Piece {
  Box in_r;
  Box in_m;
};
struct Pieces {
  std::vector<Piece> pieces;
  int axis = 0;  // the axis of r the box was cut along
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

// The runs of `box` along `axis` whose neighbours stay neighbours in m, as (start, length).
std::vector<std::pair<int64_t, int64_t>> runs_along(const LayoutMap& map, const Box& box, size_t axis) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  std::vector<int64_t> index = box.lo, previous, position(static_cast<size_t>(map.m_shape().rank()));
  int64_t run_axis = -1;  // the axis of m the current run advances along, once it has two elements
  for (int64_t c = box.lo[axis]; c < box.hi[axis]; ++c) {
    index[axis] = c;
    map.source(index.data(), position.data());
    std::optional<size_t> step = previous.empty() ? std::nullopt : unit_step(previous, position);
    if (step && (run_axis < 0 || run_axis == static_cast<int64_t>(*step))) {
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

// The box as one piece when L keeps it a box, else cut along the first axis whose runs each stay
// boxes; nullopt when no such cut exists.
std::optional<Pieces> pieces_in_m(const LayoutMap& map, const Box& box) {
  if (std::optional<Box> whole = box_in_m(map, box)) return Pieces{{{box, *whole}}, 0};
  for (size_t axis = 0; axis < box.lo.size(); ++axis) {
    if (box.hi[axis] - box.lo[axis] < 2) continue;
    std::vector<std::pair<int64_t, int64_t>> runs = runs_along(map, box, axis);
    if (runs.size() < 2 || runs.size() > kMaxPieces) continue;
    Pieces cut{{}, static_cast<int>(axis)};
    for (const auto& [start, length] : runs) {
      Box piece = box;
      piece.lo[axis] = start;
      piece.hi[axis] = start + length;
      std::optional<Box> mapped = box_in_m(map, piece);
      if (!mapped) break;
      cut.pieces.push_back({piece, *mapped});
    }
    if (cut.pieces.size() == runs.size()) return cut;
  }
  return std::nullopt;
}

// Answers of pieces_in_m remembered before the memo starts over.
constexpr size_t kRememberedPieces = 4096;

// pieces_in_m walks every element of the box, and the search asks again for the same layout and
// box in every candidate program it prices (each one's finalize passes; a ResNet-18 stage at
// batch 16 has boxes of millions of elements). The answer depends on the layout, the two types
// and the box alone.
std::optional<Pieces> remembered_pieces_in_m(const LayoutMap& map, const Box& box) {
  static Memo<std::optional<Pieces>> answers(kRememberedPieces);
  std::string key = map.key() + " " + box.to_string();
  if (std::optional<std::optional<Pieces>> known = answers.find(key)) return *known;
  std::optional<Pieces> result = pieces_in_m(map, box);
  answers.remember(std::move(key), result);
  return result;
}

// The Layout part of a LayoutOverwrite's attributes (a Layout's own attributes).
Attributes layout_part(const Attributes& attrs) {
  return ops::layout_attrs(attrs.get_ints("expanded"), attrs.get_ints("perm"), attrs.get_ints("groups"));
}

// Whether the Layout node `reader` of r (shape `shape`) moves every element as `back` does.
bool undoes(const Node& reader, const Attributes& back, const Shape& shape) {
  if (reader.op() != "Layout" || reader.inputs.size() != 1 || ops::fused_activation(reader.attrs) != "none")
    return false;
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
  for (size_t d = 0; d < rank; ++d)
    if (steps[d] != 1 || starts[d] < 0 || ends[d] > shape.dims()[d] || ends[d] <= starts[d]) return std::nullopt;
  return Box{starts, ends};
}

struct SliceRead {
  NodeId node;
  Pieces in_m;  // the slice's box in the mutant's own layout, in pieces
};

// What a rewrite of one node needs, found before anything changes.
struct Plan {
  NodeId node;
  std::vector<Pieces> patches;  // each patch's box in m, in pieces
  std::vector<SliceRead> slices;
};

// The readers of r (no graph output) are Layouts that undo L and Slices, at least one Slice for a
// plain Layout (the rest is the layout chain elimination's work); checked before any box is walked.
bool readers_fit(const Graph& graph, std::span<const NodeId> readers, const Node& node, const Attributes& back) {
  ValueId result = node.outputs[0];
  if (graph.is_output(result) || readers.empty()) return false;
  const Shape& shape = graph.value(result).type.shape;
  bool any_slice = false;
  for (NodeId reader : readers) {
    const Node& read = graph.node(reader);
    bool slice = read.op() == "Slice" && read.inputs.size() == 1 && read.inputs[0] == result;
    if (!slice && !undoes(read, back, shape)) return false;
    any_slice = any_slice || slice;
  }
  return any_slice || node.op() == "LayoutOverwrite";
}

// The patches' pieces as they land in m.
std::vector<ops::PatchBox> patch_boxes_in_m(const std::vector<Pieces>& patches) {
  std::vector<ops::PatchBox> boxes;
  for (const Pieces& patch : patches)
    for (const Piece& piece : patch.pieces) boxes.push_back({piece.in_m.lo, Shape(box_size(piece.in_m))});
  return boxes;
}

std::optional<Plan> plan_rewrite(const Graph& graph, const Consumers& users, NodeId n) {
  const Node& node = graph.node(n);
  bool corrected = node.op() == "LayoutOverwrite" && node.inputs.size() >= 2;
  bool plain = node.op() == "Layout" && node.inputs.size() == 1 && ops::fused_activation(node.attrs) == "none";
  if (!(corrected || plain) || node.outputs.size() != 1) return std::nullopt;
  const TensorType& m = graph.value(node.inputs[0]).type;
  const TensorType& r = graph.value(node.outputs[0]).type;
  Attributes layout = layout_part(node.attrs);
  if (ops::layouts_move_alike(m.shape, layout, ops::layout_identity(m.shape))) return std::nullopt;
  Attributes back = ops::layout_inverse(m.shape, layout);
  std::span<const NodeId> readers = users[static_cast<size_t>(node.outputs[0])];
  if (!readers_fit(graph, readers, node, back)) return std::nullopt;
  LayoutMap map(layout, m, r);
  Plan plan{n, {}, {}};
  if (corrected) {
    for (const ops::PatchBox& patch : ops::patch_boxes(graph, node)) {
      std::vector<int64_t> hi = patch.offsets;
      for (size_t d = 0; d < hi.size(); ++d) hi[d] += patch.shape.dims()[d];
      std::optional<Pieces> mapped = remembered_pieces_in_m(map, Box{patch.offsets, hi});
      if (!mapped) return std::nullopt;
      plan.patches.push_back(std::move(*mapped));
    }
    std::vector<ops::PatchBox> written = patch_boxes_in_m(plan.patches);
    if (written.size() > static_cast<size_t>(node.def->max_inputs - 1) ||
        !ops::patch_lowering_refusal(ops::lowering_of(node.attrs), m.shape, written).empty())
      return std::nullopt;
  }
  for (NodeId reader : readers) {
    if (graph.node(reader).op() != "Slice") continue;  // a Layout that undoes L (readers_fit)
    std::optional<Box> box = slice_box(graph.node(reader), node.outputs[0], r.shape);
    if (!box) return std::nullopt;
    std::optional<Pieces> mapped = remembered_pieces_in_m(map, *box);
    if (!mapped) return std::nullopt;
    plan.slices.push_back({reader, std::move(*mapped)});
  }
  return plan;
}

ValueId slice_of(Graph& graph, ValueId value, const Box& box, const std::string& name) {
  return graph.add_node1("Slice", {{"starts", box.lo}, {"ends", box.hi}, {"steps", std::vector<int64_t>(box.lo.size(), 1)}},
                         {value}, name);
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
  for (size_t p = 0; p < plan.patches.size(); ++p) {
    std::string prefix = fmt::format("{}_patch{}", node.name, p);
    ValueId patch = activated(node.inputs[p + 1], prefix + "_relu");
    const std::vector<Piece>& pieces = plan.patches[p].pieces;
    for (size_t k = 0; k < pieces.size(); ++k) {
      ValueId piece = patch;
      if (pieces.size() > 1) {
        Box local = pieces[k].in_r;  // the piece within the patch (the first piece starts where it does)
        for (size_t d = 0; d < local.lo.size(); ++d) {
          local.lo[d] -= pieces[0].in_r.lo[d];
          local.hi[d] -= pieces[0].in_r.lo[d];
        }
        piece = slice_of(graph, patch, local, fmt::format("{}_piece{}", prefix, k));
      }
      inputs.push_back(reshaped(graph, piece, box_size(pieces[k].in_m), fmt::format("{}_reshape{}", prefix, k)));
    }
  }
  const Shape& base = graph.value(node.inputs[0]).type.shape;
  Attributes attrs = ops::layout_identity(base);
  std::vector<int64_t> offsets;
  for (const ops::PatchBox& box : patch_boxes_in_m(plan.patches)) offsets.insert(offsets.end(), box.offsets.begin(), box.offsets.end());
  attrs.set("offsets", offsets);
  if (node.attrs.has(ops::kLoweringAttr)) attrs.set(ops::kLoweringAttr, node.attrs.get_string(ops::kLoweringAttr));
  return graph.add_node1("LayoutOverwrite", std::move(attrs), inputs, node.name + "_in_layout");
}

void rewrite(Graph& graph, const Plan& plan) {
  Node node = graph.node(plan.node);
  bool corrected = node.op() == "LayoutOverwrite";
  // a plain Layout stays (the readers that undo it cancel it); a corrected one is rebuilt as L(o)
  ValueId written = corrected ? write_in_layout(graph, node, plan) : node.inputs[0];
  ValueId laid = corrected ? graph.add_node1("Layout", layout_part(node.attrs), {written}, node.name) : kNoValue;
  std::vector<NodeId> doomed;
  std::vector<std::pair<std::string, std::string>> renames;  // (new value, the name it takes over)
  for (const SliceRead& slice : plan.slices) {
    const Node& old = graph.node(slice.node);
    ValueId old_output = old.outputs[0];
    std::string old_name = old.name;
    const std::vector<Piece>& pieces = slice.in_m.pieces;
    std::vector<ValueId> parts;
    for (size_t k = 0; k < pieces.size(); ++k) {
      std::string suffix = pieces.size() > 1 ? fmt::format("_piece{}", k) : "";
      ValueId sliced = slice_of(graph, written, pieces[k].in_m, old_name + suffix);
      parts.push_back(reshaped(graph, sliced, box_size(pieces[k].in_r), old_name + suffix + "_reshape"));
    }
    ValueId fitted = parts.size() == 1
                         ? parts[0]
                         : graph.add_node1("Concat", {{"axis", int64_t{slice.in_m.axis}}}, parts, old_name + "_joined");
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
    for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()) && !changed; ++n) {
      std::optional<Plan> plan = plan_rewrite(graph, users, n);
      if (!plan) continue;
      rewrite(graph, *plan);
      ++rewritten;
      changed = true;
    }
  }
  return rewritten;
}

}  // namespace pet
