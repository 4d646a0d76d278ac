// The analytic cost model: the roofline of each node, and for a GPU target's fallback each node's
// place in pet-gpu's kernels; nodes that only prepare constants cost nothing because finalize
// folds them before anything runs.
#include "search/cost/cost_model.h"

#include <algorithm>

#include "core/broadcast_axis.h"
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

// The bytes of `node`'s inputs other than `chain` (the value the kernel before it hands on).
double other_operand_bytes(const Graph& graph, const Node& node, ValueId chain) {
  double bytes = 0;
  for (ValueId input : node.inputs)
    if (input != kNoValue && input != chain) bytes += static_cast<double>(tensor_bytes(graph.value(input).type).value_or(0));
  return bytes;
}

// The slower of a node's arithmetic on CUDA cores over every SM and `bytes` at the streaming bandwidth.
double inside_a_kernel_us(const DeviceSpec& device, const Workload& work, double bytes) {
  double compute_us = work.flops / (device.fp32_flops * device.curves.cuda_core) * 1e6;
  double memory_us = bytes / (device.bandwidth * device.curves.bandwidth_peak) * 1e6;
  return std::max(compute_us, memory_us);
}

// The chain value `node` reads from the group's node before it (its only input from inside).
ValueId chain_input(const Graph& graph, const Node& node, NodeId before) {
  for (ValueId input : node.inputs)
    if (input != kNoValue && graph.value(input).producer == before) return input;
  return kNoValue;
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

namespace {

// Whether `value` is a bias for an output of `rank` dimensions: computed from constants, and 1 on
// every axis but `axis` (as pet-gpu's grouping asks of an epilogue's bias).
bool is_bias(const Graph& graph, const KernelGrouping& grouping, ValueId value, int rank, int axis) {
  return grouping.constant_derived[static_cast<size_t>(value)] &&
         varies_only_along(graph.value(value).type.shape, rank, axis);
}

// The steps of a cuDNN convolution's or a cuBLASLt GEMM's epilogue, in the order pet-gpu fuses them.
enum class EpilogueStep { bias, residual, activation, done };

// How many of `nodes` after the head ride in the head's own epilogue (grouping.cpp's fuse_epilogue).
size_t epilogue_length(const Graph& graph, const KernelGrouping& grouping, const std::vector<NodeId>& nodes) {
  const Node& head = graph.node(nodes[0]);
  bool conv = head.op() == "Conv", gemm = head.op() == "MatMul" || head.op() == "Gemm";
  if ((!conv && !gemm) || ops::activation_op(head.attrs)) return 0;
  const TensorType& out = graph.value(head.outputs[0]).type;
  int bias_axis = conv ? 1 : out.shape.rank() - 1;
  EpilogueStep next = conv && head.inputs.size() > 2 ? EpilogueStep::residual : EpilogueStep::bias;
  size_t fused = 0;
  for (size_t i = 1; i < nodes.size() && next != EpilogueStep::done; ++i) {
    const Node& node = graph.node(nodes[i]);
    ValueId chain = chain_input(graph, node, nodes[i - 1]);
    ValueId other = node.inputs.size() == 2 ? node.inputs[node.inputs[0] == chain ? 1 : 0] : kNoValue;
    bool add = node.op() == "Add" && other != kNoValue && graph.value(node.outputs[0]).type == out;
    if (next == EpilogueStep::bias && add && out.dtype == DType::f32 &&
        is_bias(graph, grouping, other, out.shape.rank(), bias_axis)) {
      next = conv ? EpilogueStep::residual : EpilogueStep::activation;
    } else if (next <= EpilogueStep::residual && conv && add && graph.value(other).type == out) {
      next = EpilogueStep::activation;
    } else if (ops::activation_for_op(node.op())) {
      next = EpilogueStep::done;
    } else {
      break;
    }
    fused = i;
  }
  return fused;
}

}  // namespace

const char* kernel_place_name(KernelPlace place) {
  switch (place) {
    case KernelPlace::own_kernel: return "own kernel";
    case KernelPlace::fused: return "fused";
    case KernelPlace::correction_kernel: return "correction kernel";
    case KernelPlace::view: return "view";
  }
  PET_CHECK(false, "unknown kernel place");
  return "";
}

bool runs_as_view(const Graph& graph, const Node& node) {
  if (!node.def->traits.view && !node.def->traits.identity_like) return false;
  return std::none_of(node.outputs.begin(), node.outputs.end(), [&](ValueId id) { return graph.is_output(id); });
}

std::vector<KernelPlace> gpu_kernel_places(const Graph& graph, const KernelGrouping& grouping, const KernelGroup& group,
                                           const std::vector<bool>* in_correction_kernel) {
  const std::vector<NodeId>& nodes = group.nodes;
  const Node& head = graph.node(nodes[0]);
  bool view_head = runs_as_view(graph, head);
  bool elementwise_head = !view_head && head.def->traits.elementwise && !head.def->traits.compute_heavy;
  size_t in_head_kernel = elementwise_head ? nodes.size() - 1 : epilogue_length(graph, grouping, nodes);
  std::vector<KernelPlace> places(nodes.size(), KernelPlace::fused);
  places[0] = view_head ? KernelPlace::view : KernelPlace::own_kernel;
  if (in_head_kernel + 1 < nodes.size()) places[in_head_kernel + 1] = KernelPlace::own_kernel;  // the epilogue's kernel
  for (size_t i = 0; in_correction_kernel && i < nodes.size(); ++i)
    if ((*in_correction_kernel)[static_cast<size_t>(nodes[i])]) places[i] = KernelPlace::correction_kernel;
  return places;
}

// A node fused into the kernel before it reads only its other operands: the chain's value stays in
// registers, and the kernel's one write is already in its first node's price.
std::vector<double> estimated_group_us(const DeviceSpec& device, const Graph& graph, const KernelGrouping& grouping,
                                       const KernelGroup& group, const std::vector<bool>* in_correction_kernel) {
  std::vector<KernelPlace> places = gpu_kernel_places(graph, grouping, group, in_correction_kernel);
  std::vector<double> us;
  for (size_t i = 0; i < group.nodes.size(); ++i) {
    NodeId id = group.nodes[i];
    if (places[i] == KernelPlace::view) {
      us.push_back(0);
      continue;
    }
    if (places[i] != KernelPlace::fused) {
      us.push_back(estimated_node_us(device, graph, id, places[i] == KernelPlace::correction_kernel));
      continue;
    }
    const Node& node = graph.node(id);
    double reads = other_operand_bytes(graph, node, chain_input(graph, node, group.nodes[i - 1]));
    us.push_back(inside_a_kernel_us(device, describe_workload(graph, node), reads));
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
