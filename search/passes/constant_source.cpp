// Small values computed from constants, evaluated where a pass needs them before weights are folded.
#include "search/passes/constant_source.h"

#include <map>

#include "core/executor.h"

namespace pet {
namespace {

// Counts the constant elements behind `value`; false when an input (or too much) is behind it.
bool within_budget(const Graph& graph, ValueId value, int64_t& budget, std::map<ValueId, bool>& visited) {
  if (visited.count(value)) return true;
  visited[value] = true;
  const Value& entry = graph.value(value);
  if (entry.constant) return (budget -= entry.type.shape.numel()) >= 0;
  if (entry.producer < 0) return false;
  for (ValueId input : graph.node(entry.producer).inputs)
    if (input != kNoValue && !within_budget(graph, input, budget, visited)) return false;
  return true;
}

}  // namespace

std::optional<Tensor> small_derived_constant(const Graph& graph, ValueId value, int64_t max_elements) {
  int64_t budget = max_elements;
  std::map<ValueId, bool> visited;
  if (!within_budget(graph, value, budget, visited)) return std::nullopt;
  std::map<ValueId, Tensor> memo;
  return computed_constant(graph, value, memo);
}

const Tensor& computed_constant(const Graph& graph, ValueId value, std::map<ValueId, Tensor>& memo) {
  if (graph.is_constant(value)) return *graph.value(value).constant;
  if (auto found = memo.find(value); found != memo.end()) return found->second;
  const Node& node = graph.node(graph.value(value).producer);
  std::vector<const Tensor*> inputs;
  for (ValueId input : node.inputs) inputs.push_back(input == kNoValue ? nullptr : &computed_constant(graph, input, memo));
  std::vector<TensorType> types;
  for (ValueId output : node.outputs) types.push_back(graph.value(output).type);
  std::vector<Tensor> outputs = execute_node(node, inputs, types);
  for (size_t i = 0; i < outputs.size(); ++i) memo[node.outputs[i]] = std::move(outputs[i]);
  return memo.at(value);
}

}  // namespace pet
