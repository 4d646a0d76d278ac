// Picks each correction's lowering by pricing the program once per admissible lowering.
#include "search/cost/correction_lowering.h"

#include <optional>
#include <string>
#include <vector>

#include "core/ops/patch_lowering.h"

namespace pet::cost {

bool is_correction(const Node& node) { return node.op() == "Overwrite" || node.op() == "LayoutOverwrite"; }

namespace {

bool admits(const Graph& graph, const Node& node, ops::PatchLowering lowering) {
  if (lowering != ops::PatchLowering::slices && graph.opset < ops::kPatchLoweringMinOpset) return false;
  const Shape& base = graph.value(node.outputs[0]).type.shape;
  return ops::patch_lowering_refusal(lowering, base, ops::patch_boxes(graph, node)).empty();
}

}  // namespace

std::string correction_lowerings_of(const Graph& graph) {
  std::string text;
  for (const Node& node : graph.nodes())
    if (is_correction(node)) text += (text.empty() ? "" : "+") + std::string(ops::to_string(ops::lowering_of(node.attrs)));
  return text;
}

std::vector<std::pair<ops::PatchLowering, double>> cost_by_lowering(const Graph& graph, const CostModel& cost) {
  std::vector<std::pair<ops::PatchLowering, double>> costs;
  for (ops::PatchLowering lowering : ops::patch_lowerings()) {
    Graph trial = graph;
    bool admitted = true;
    for (NodeId id = 0; id < static_cast<NodeId>(trial.nodes().size()) && admitted; ++id) {
      const Node& node = trial.node(id);
      if (!is_correction(node) || node.inputs.size() < 2) continue;
      admitted = admits(trial, node, lowering);
      if (admitted) trial.set_node_attribute(id, ops::kLoweringAttr, std::string(ops::to_string(lowering)));
    }
    if (admitted) costs.emplace_back(lowering, cost.graph_cost(trial));
  }
  return costs;
}

bool picks_correction_lowerings(const CostModel& cost) {
  return cost.measurement() && cost.measurement()->picks_correction_lowering;
}

int pick_correction_lowerings(Graph& graph, const CostModel& cost) {
  if (!picks_correction_lowerings(cost)) return 0;
  int picked = 0;
  std::optional<double> current_us;  // the program as it stands: priced once, again only after a pick
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) {
    const Node& node = graph.node(id);
    if (!is_correction(node) || node.attrs.has(ops::kLoweringAttr) || node.inputs.size() < 2) continue;
    if (!current_us) current_us = cost.graph_cost(graph);
    ops::PatchLowering best = ops::PatchLowering::slices;
    double best_us = *current_us;
    for (ops::PatchLowering lowering : ops::patch_lowerings()) {
      if (lowering == ops::PatchLowering::slices || !admits(graph, node, lowering)) continue;
      Graph trial = graph;
      trial.set_node_attribute(id, ops::kLoweringAttr, std::string(ops::to_string(lowering)));
      double trial_us = cost.graph_cost(trial);
      if (trial_us < best_us) best = lowering, best_us = trial_us;
    }
    if (best == ops::PatchLowering::slices) continue;
    graph.set_node_attribute(id, ops::kLoweringAttr, std::string(ops::to_string(best)));
    current_us = best_us;
    ++picked;
  }
  return picked;
}

}  // namespace pet::cost
