// The analytic cost model: the roofline of each node, and for a GPU target's fallback each node's
// place in pet-gpu's kernels; nodes that only prepare constants cost nothing because finalize
// folds them before anything runs.
#include "search/cost/cost_model.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops/fused_activation.h"
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

namespace {

// The slower of a node's arithmetic on CUDA cores over every SM and `bytes` at the streaming bandwidth.
double inside_a_kernel_us(const DeviceSpec& device, const Workload& work, double bytes) {
  double compute_us = work.flops / (device.fp32_flops * device.curves.cuda_core) * 1e6;
  double memory_us = bytes / (device.bandwidth * device.curves.bandwidth_peak) * 1e6;
  return std::max(compute_us, memory_us);
}

}  // namespace

// A correction's recomputation runs inside the emitted overwrite kernel: no launch of its own,
// slices are index offsets of its reads, and the arithmetic is plain CUDA-core work spread over
// every SM (one thread per recomputed element) reading at the streaming bandwidth.
double estimated_node_us(const DeviceSpec& device, const Graph& graph, NodeId id, bool in_correction_kernel) {
  const Node& node = graph.node(id);
  Workload work = describe_workload(graph, node);
  if (!in_correction_kernel) return kernel_time(device, work).total_us;
  return node.def->traits.layout_only ? 0 : inside_a_kernel_us(device, work, work.bytes);
}

const char* kernel_place_name(KernelPlace place) {
  switch (place) {
    case KernelPlace::own_kernel: return "own kernel";
    case KernelPlace::fused: return "fused";
    case KernelPlace::view: return "view";
  }
  PET_CHECK(false, "unknown kernel place");
  return "";
}

std::vector<KernelPlace> gpu_kernel_places(const KernelGrouping& grouping, const KernelGroup& group) {
  PET_CHECK(grouping.rule == GroupingRule::pet_gpu_steps, "pet-gpu's kernel places are those of its steps");
  const std::vector<NodeId>& nodes = group.nodes;
  std::vector<KernelPlace> places(nodes.size(), KernelPlace::fused);
  places[0] = group.in_place ? KernelPlace::view : KernelPlace::own_kernel;
  return places;
}

namespace {

// The bytes of the operands of `node` that come from outside `group` (inside it, they stay in the kernel).
double outside_operand_bytes(const Graph& graph, const Node& node, const KernelGroup& group) {
  double bytes = 0;
  for (ValueId input : node.inputs) {
    if (input == kNoValue) continue;
    NodeId producer = graph.value(input).producer;
    if (producer >= 0 && std::find(group.nodes.begin(), group.nodes.end(), producer) != group.nodes.end()) continue;
    bytes += static_cast<double>(tensor_bytes(graph.value(input).type).value_or(0));
  }
  return bytes;
}

}  // namespace

// A node fused into its step's kernel reads only its operands from outside the step: the values the
// step computes stay in registers or shared memory, and the kernel's write is in its first node's price.
std::vector<double> estimated_group_us(const DeviceSpec& device, const Graph& graph, const KernelGrouping& grouping,
                                       const KernelGroup& group) {
  std::vector<KernelPlace> places = gpu_kernel_places(grouping, group);
  std::vector<double> us;
  for (size_t i = 0; i < group.nodes.size(); ++i) {
    const Node& node = graph.node(group.nodes[i]);
    switch (places[i]) {
      case KernelPlace::view: us.push_back(0); break;
      case KernelPlace::own_kernel: us.push_back(estimated_node_us(device, graph, group.nodes[i], false)); break;
      case KernelPlace::fused:
        us.push_back(inside_a_kernel_us(device, describe_workload(graph, node), outside_operand_bytes(graph, node, group)));
        break;
    }
  }
  return us;
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
