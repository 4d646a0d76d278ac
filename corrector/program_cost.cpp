// Sums of the ops' cost facets over nodes.
#include "corrector/program_cost.h"

namespace pet::corrector {

Cost node_cost(const Graph& graph, const Node& node) {
  std::vector<const TensorType*> inputs;
  for (ValueId id : node.inputs) inputs.push_back(id == kNoValue ? nullptr : &graph.value(id).type);
  std::vector<TensorType> outputs;
  for (ValueId id : node.outputs) outputs.push_back(graph.value(id).type);
  if (!node.def->cost) return {};
  return node.def->cost(CostContext{node.attrs, inputs, outputs});
}

Cost nodes_cost(const Graph& graph, size_t first, size_t last) {
  Cost total;
  for (size_t i = first; i < last; ++i) {
    Cost cost = node_cost(graph, graph.nodes()[i]);
    total.flops += cost.flops;
    total.bytes += cost.bytes;
  }
  return total;
}

Cost program_cost(const Graph& graph) { return nodes_cost(graph, 0, graph.nodes().size()); }

}  // namespace pet::corrector
