// The cost model: a profile DB entry where one was measured, else the analytic roofline; nodes
// that only prepare constants cost nothing because finalize folds them before anything runs.
#include "search/cost/cost_model.h"

#include "search/cost/workload.h"

namespace pet::cost {
namespace {

// Every present input is a constant (weight preparation), or the output depends only on types.
bool folded_before_running(const Graph& graph, const Node& node) {
  if (node.def->traits.type_only) return true;
  for (ValueId input : node.inputs)
    if (input != kNoValue && !graph.is_constant(input)) return false;
  return true;
}

}  // namespace

CostModel::CostModel(DeviceSpec device, ProfileDb profile) : device_(std::move(device)), profile_(std::move(profile)) {}

NodeCost CostModel::node_cost(const Graph& graph, NodeId id) const {
  const Node& node = graph.node(id);
  if (folded_before_running(graph, node)) {
    NodeCost folded;
    folded.folded = true;
    return folded;
  }
  std::string key = signature_of(graph, node).key();
  {
    std::lock_guard lock(mutex_);
    auto found = memo_.find(key);
    if (found != memo_.end()) return found->second;
  }
  Workload work = describe_workload(graph, node);
  NodeCost cost;
  cost.flops = work.flops;
  cost.bytes = work.bytes;
  if (std::optional<double> measured = profile_.lookup(device_.name, key)) {
    cost.microseconds = *measured;
    cost.measured = true;
  } else {
    cost.microseconds = kernel_time(device_, work).total_us;
  }
  std::lock_guard lock(mutex_);
  memo_.emplace(std::move(key), cost);
  return cost;
}

double CostModel::graph_cost(const Graph& graph) const {
  double total = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) total += node_cost(graph, id).microseconds;
  return total;
}

}  // namespace pet::cost
