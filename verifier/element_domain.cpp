// The element-type gate: f32 everywhere for arithmetic, any type for pure data movement.
#include "verifier/element_domain.h"

#include <algorithm>
#include <vector>

#include "core/ops/fused_activation.h"

namespace pet {
namespace {

bool all_f32(const Graph& graph, const Node& node) {
  auto f32 = [&](ValueId id) { return id == kNoValue || graph.value(id).type.dtype == DType::f32; };
  return std::all_of(node.inputs.begin(), node.inputs.end(), f32) &&
         std::all_of(node.outputs.begin(), node.outputs.end(), f32);
}

}  // namespace

bool moves_elements_only(const Node& node) {
  const OpTraits& traits = node.def->traits;
  return (traits.layout_only || traits.identity_like) && ops::fused_activation(node.attrs) == "none";
}

bool may_rewrite(const Graph& graph, std::span<const NodeId> nodes) {
  auto node = [&](NodeId id) -> const Node& { return graph.node(id); };
  bool data_movement = std::all_of(nodes.begin(), nodes.end(), [&](NodeId id) { return moves_elements_only(node(id)); });
  return data_movement || std::all_of(nodes.begin(), nodes.end(), [&](NodeId id) { return all_f32(graph, node(id)); });
}

bool may_rewrite(const Graph& program) {
  std::vector<NodeId> nodes(program.nodes().size());
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = static_cast<NodeId>(i);
  return may_rewrite(program, nodes);
}

bool may_rewrite(const Graph& graph, NodeId node) { return may_rewrite(graph, std::span<const NodeId>(&node, 1)); }

}  // namespace pet
