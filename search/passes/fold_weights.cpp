// Folding in topological order, so a chain of weight transforms folds in one sweep.
#include "search/passes/fold_weights.h"

#include <algorithm>

#include "core/executor.h"

namespace pet {
namespace {

constexpr int64_t kFoldElementLimit = 1 << 16;

bool reads_only_constants(const Graph& graph, const Node& node) {
  return std::all_of(node.inputs.begin(), node.inputs.end(),
                     [&](ValueId id) { return id == kNoValue || graph.is_constant(id); });
}

bool small_enough(const Graph& graph, const Node& node) {
  int64_t in = 0, out = 0;
  for (ValueId id : node.inputs)
    if (id != kNoValue) in += graph.value(id).type.shape.numel();
  for (ValueId id : node.outputs) out += graph.value(id).type.shape.numel();
  return out <= std::max(kFoldElementLimit, in);
}

}  // namespace

int fold_weights(Graph& graph) {
  std::vector<NodeId> folded;
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()); ++n) {
    const Node& node = graph.node(n);
    if (!reads_only_constants(graph, node) || !small_enough(graph, node)) continue;
    std::vector<const Tensor*> inputs;
    for (ValueId id : node.inputs) inputs.push_back(id == kNoValue ? nullptr : &*graph.value(id).constant);
    std::vector<TensorType> types;
    for (ValueId id : node.outputs) types.push_back(graph.value(id).type);
    std::vector<Tensor> values = execute_node(node, inputs, types);
    for (size_t i = 0; i < values.size(); ++i) graph.make_constant(graph.node(n).outputs[i], std::move(values[i]));
    folded.push_back(n);
  }
  if (!folded.empty()) graph.remove_nodes(folded);
  return static_cast<int>(folded.size());
}

}  // namespace pet
