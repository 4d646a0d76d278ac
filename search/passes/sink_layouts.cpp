// Layout sinking: rebuild the elementwise op on the layout's input, then the layout on top.
#include "search/passes/sink_layouts.h"

#include <algorithm>
#include <array>
#include <optional>
#include <random>

#include "core/memo.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "search/passes/constant_source.h"
#include "verifier/element_domain.h"

namespace pet {
namespace {

// Pulls, for an input element, its channel index: a layout's point facet then tells which
// channel each output element came from.
class ChannelOfInput final : public FieldPuller {
 public:
  uint64_t pull(int /*input*/, const int64_t* index) const override { return field::from_int(index[1]); }
};

// Every output element up to kExhaustive elements, else the two corners and kSampled seeded
// random ones: a rearrangement (split, permute, merge of axes) that moves some element to another
// channel moves at least half of them, so a wrong "kept" is below 2^-kSampled.
constexpr int64_t kExhaustive = int64_t{1} << 16;
constexpr int kSampled = 2048;
constexpr size_t kRemembered = 4096;  // layouts asked about (a search meets a few dozen)

bool channel_kept_at(const Node& layout, const TensorType& input, const TensorType& output, int64_t flat) {
  static const ChannelOfInput channel_of_input;
  std::vector<int64_t> index(static_cast<size_t>(output.shape.rank()));
  ops::unravel_index(flat, output.shape, index.data());
  const TensorType* inputs[] = {&input};
  PointContext context{layout.attrs, inputs, output, 0, index.data(), channel_of_input};
  return layout.def->eval_point(context) == field::from_int(index[1]);
}

// Whether `layout` maps every element of channel c (axis 1) to channel c, asking its point
// facet where each element comes from (no tensor is built: these layouts often move whole
// batch-16 activations). Memoized by attributes and input type.
bool keeps_channels(const Node& layout, const TensorType& input, const TensorType& output) {
  if (input.shape.rank() < 2 || input.shape.rank() != output.shape.rank() ||
      input.shape.dims()[1] != output.shape.dims()[1] || !layout.def->eval_point || layout.inputs.size() != 1)
    return false;
  static Memo<bool> memo(kRemembered);
  std::string key = layout.op() + layout.attrs.to_string() + ":" + input.to_string();
  if (std::optional<bool> known = memo.find(key)) return *known;
  int64_t numel = output.shape.numel();
  bool kept = true;
  if (numel <= kExhaustive) {
    for (int64_t flat = 0; flat < numel && kept; ++flat) kept = channel_kept_at(layout, input, output, flat);
  } else {
    std::mt19937_64 engine(0x5eedc4a7ULL);
    kept = channel_kept_at(layout, input, output, 0) && channel_kept_at(layout, input, output, numel - 1);
    for (int i = 0; i < kSampled && kept; ++i)
      kept = channel_kept_at(layout, input, output, static_cast<int64_t>(engine() % static_cast<uint64_t>(numel)));
  }
  memo.remember(std::move(key), kept);
  return kept;
}

bool other_input_commutes(const Graph& graph, const Node& layout, ValueId other) {
  const Tensor* constant = constant_source(graph, other);
  if (!constant) return false;
  if (constant->numel() == 1) return true;
  const TensorType& in = graph.value(layout.inputs[0]).type;
  const TensorType& out = graph.value(layout.outputs[0]).type;
  const std::vector<int64_t>& dims = graph.value(other).type.shape.dims();
  if (static_cast<int>(dims.size()) != out.shape.rank()) return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != (d == 1 ? out.shape.dims()[1] : 1)) return false;
  return keeps_channels(layout, in, out);
}

std::optional<NodeId> sinkable_reader(const Graph& graph, const Consumers& users, NodeId n) {
  const Node& layout = graph.node(n);
  if (!layout.def->traits.layout_only || layout.inputs.size() != 1 || layout.outputs.size() != 1) return std::nullopt;
  ValueId moved = layout.outputs[0];
  if (users[static_cast<size_t>(moved)].size() != 1 || graph.is_output(moved)) return std::nullopt;
  NodeId reader = users[static_cast<size_t>(moved)][0];
  const Node& op = graph.node(reader);
  if (!op.def->traits.elementwise || op.outputs.size() != 1 || graph.value(op.outputs[0]).type != graph.value(moved).type)
    return std::nullopt;
  if (std::count(op.inputs.begin(), op.inputs.end(), moved) != 1) return std::nullopt;
  if (!may_rewrite(graph, std::array<NodeId, 2>{n, reader})) return std::nullopt;
  for (ValueId input : op.inputs)
    if (input != moved && !other_input_commutes(graph, layout, input)) return std::nullopt;
  return reader;
}

}  // namespace

namespace {

// Moves one layout below its reader; false when none can move.
bool sink_one(Graph& graph) {
  auto users = graph.consumers();
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()); ++n) {
    std::optional<NodeId> reader = sinkable_reader(graph, users, n);
    if (!reader) continue;
    Node layout = graph.node(n), op = graph.node(*reader);
    std::vector<ValueId> inputs = op.inputs;
    std::replace(inputs.begin(), inputs.end(), layout.outputs[0], layout.inputs[0]);
    ValueId early = graph.add_node1(op.op(), op.attrs, inputs, op.name);
    ValueId late = graph.add_node1(layout.op(), layout.attrs, {early}, layout.name);
    ValueId old_output = op.outputs[0];
    std::string name = graph.value(old_output).name, late_name = graph.value(late).name;
    graph.replace_uses(old_output, late);
    graph.remove_nodes({n, *reader});
    graph.rename_value(*graph.find_value(late_name), name);
    graph.sort_topologically();
    return true;
  }
  return false;
}

}  // namespace

int sink_layouts(Graph& graph) {
  // Every move takes a layout one op further down a finite graph, so this ends; the bound is a guard.
  const int limit = 4 * static_cast<int>(graph.nodes().size()) + 16;
  int moved = 0;
  while (moved < limit && sink_one(graph)) ++moved;
  return moved;
}

}  // namespace pet
