// Identity bypass that preserves graph output names.
#include "search/passes/remove_identities.h"

#include <algorithm>

namespace pet {
namespace {

bool extra_outputs_unused(const Graph& graph, const Node& node, const Consumers& users) {
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (!users[static_cast<size_t>(node.outputs[i])].empty() || graph.is_output(node.outputs[i])) return false;
  return true;
}

// An output that is also a graph output can only be bypassed when its source can take over
// its name: the source must be computed by a node and not be a graph output itself.
bool can_bypass(const Graph& graph, const Node& node) {
  ValueId out = node.outputs[0], in = node.inputs[0];
  if (!graph.is_output(out)) return true;
  return graph.value(in).producer >= 0 && !graph.is_output(in);
}

}  // namespace

int remove_identities(Graph& graph) {
  auto users = graph.consumers();
  std::vector<NodeId> removed;
  std::vector<std::pair<ValueId, std::string>> renames;
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()); ++n) {
    const Node& node = graph.node(n);
    if (!node.def->traits.identity_like || node.inputs.empty() || node.inputs[0] == kNoValue) continue;
    if (!extra_outputs_unused(graph, node, users) || !can_bypass(graph, node)) continue;
    ValueId out = node.outputs[0], in = node.inputs[0];
    if (graph.is_output(out)) renames.emplace_back(in, graph.value(out).name);
    graph.replace_uses(out, in);
    removed.push_back(n);
  }
  // remove_nodes renumbers values, so renames are applied by name afterwards.
  std::vector<std::pair<std::string, std::string>> by_name;
  for (const auto& [id, name] : renames) by_name.emplace_back(graph.value(id).name, name);
  graph.remove_nodes(removed);
  for (const auto& [old_name, new_name] : by_name) graph.rename_value(*graph.find_value(old_name), new_name);
  return static_cast<int>(removed.size());
}

}  // namespace pet
