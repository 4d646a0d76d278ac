// The analytic cost model: the roofline of each node; nodes that only prepare constants cost
// nothing because finalize folds them before anything runs.
#include "search/cost/cost_model.h"

#include <algorithm>

#include "search/cost/roofline.h"
#include "search/cost/workload.h"

namespace pet::cost {

CostModel::CostModel(DeviceSpec device) : device_(std::move(device)) {}

CostModel::CostModel(DeviceSpec fallback, ProfileDb profile, Measurement measurement)
    : device_(std::move(fallback)), profile_(std::move(profile)), measurement_(std::move(measurement)) {}

ProfileDb CostModel::profile() const {
  std::lock_guard lock(mutex_);
  return profile_;
}

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
  cost.microseconds = kernel_time(device_, work).total_us;
  std::lock_guard lock(mutex_);
  memo_.emplace(std::move(key), cost);
  return cost;
}

// A correction's recomputation runs inside the emitted overwrite kernel: no launch of its own,
// slices are index offsets of its reads, and the arithmetic is plain CUDA-core work spread over
// every SM (one thread per recomputed element) reading at the streaming bandwidth.
double estimated_node_us(const DeviceSpec& device, const Graph& graph, NodeId id, bool in_correction_kernel) {
  const Node& node = graph.node(id);
  Workload work = describe_workload(graph, node);
  if (!in_correction_kernel) return kernel_time(device, work).total_us;
  if (node.def->traits.layout_only) return 0;
  double compute_us = work.flops / (device.fp32_flops * device.curves.cuda_core) * 1e6;
  double memory_us = work.bytes / (device.bandwidth * device.curves.bandwidth_peak) * 1e6;
  return std::max(compute_us, memory_us);
}

std::vector<bool> fused_correction_nodes(const Graph& graph) {
  std::vector<bool> fused(graph.nodes().size(), false);
  auto users = graph.consumers();
  std::vector<NodeId> pending;
  auto take_producer_of = [&](ValueId value) {
    if (value == kNoValue) return;
    NodeId producer = graph.value(value).producer;
    if (producer < 0 || fused[static_cast<size_t>(producer)] || users[static_cast<size_t>(value)].size() != 1) return;
    if (folded_before_running(graph, graph.node(producer)) || graph.node(producer).outputs.size() != 1) return;
    fused[static_cast<size_t>(producer)] = true;
    pending.push_back(producer);
  };
  for (const Node& node : graph.nodes())
    if (node.op() == "Overwrite" || node.op() == "LayoutOverwrite")
      for (size_t i = 1; i < node.inputs.size(); ++i) take_producer_of(node.inputs[i]);
  while (!pending.empty()) {
    NodeId id = pending.back();
    pending.pop_back();
    for (ValueId input : graph.node(id).inputs) take_producer_of(input);
  }
  return fused;
}

double CostModel::graph_cost(const Graph& graph) const {
  if (measurement_) return measured_graph_cost(graph);
  std::vector<bool> fused = fused_correction_nodes(graph);
  double total = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) {
    if (fused[static_cast<size_t>(id)]) {
      total += estimated_node_us(device_, graph, id, true);
      continue;
    }
    total += node_cost(graph, id).microseconds;
  }
  return total;
}

}  // namespace pet::cost
