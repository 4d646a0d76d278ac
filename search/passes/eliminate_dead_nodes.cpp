// Dead-node elimination by a backward liveness sweep.
#include "search/passes/eliminate_dead_nodes.h"

namespace pet {

int eliminate_dead_nodes(Graph& graph) {
  std::vector<bool> live_value(graph.values().size(), false);
  for (ValueId id : graph.outputs()) live_value[static_cast<size_t>(id)] = true;
  std::vector<NodeId> dead;
  for (auto n = static_cast<NodeId>(graph.nodes().size()) - 1; n >= 0; --n) {
    const Node& node = graph.node(n);
    bool live = false;
    for (ValueId out : node.outputs) live = live || live_value[static_cast<size_t>(out)];
    if (!live) {
      dead.push_back(n);
      continue;
    }
    for (ValueId in : node.inputs)
      if (in != kNoValue) live_value[static_cast<size_t>(in)] = true;
  }
  if (!dead.empty()) graph.remove_nodes(dead);
  return static_cast<int>(dead.size());
}

}  // namespace pet
