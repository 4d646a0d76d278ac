// Kernel groups and their stand-alone models, the units a measured target is timed in.
#include "search/cost/kernel_groups.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/fused_activation.h"
#include "kernels/gpu/plan/storage.h"
#include "search/cost/cost_model.h"
#include "search/passes/constant_source.h"

namespace pet::cost {
namespace {

// The one node reading `value`, when there is exactly one reader and the value is no graph output.
NodeId only_reader(const Graph& graph, const Consumers& readers, ValueId value) {
  std::span<const NodeId> users = readers[static_cast<size_t>(value)];
  if (users.size() != 1 || graph.is_output(value)) return -1;
  return users[0];
}

// Whether `next` can join the group that ends with `last`: an elementwise op whose every other
// input is a constant or comes from outside the group.
bool joins_epilogue(const Graph& graph, const std::vector<bool>& derived, const Node& next, ValueId from,
                    const std::vector<NodeId>& group) {
  if (!next.def->traits.elementwise || next.def->traits.layout_only || next.def->traits.compute_heavy) return false;
  if (next.outputs.size() != 1) return false;
  for (ValueId input : next.inputs) {
    if (input == kNoValue || input == from || derived[static_cast<size_t>(input)]) continue;
    NodeId producer = graph.value(input).producer;
    if (std::find(group.begin(), group.end(), producer) != group.end()) return false;
  }
  return std::count(next.inputs.begin(), next.inputs.end(), from) == 1;
}

std::string group_key(const Graph& graph, const std::vector<bool>& derived, const std::vector<NodeId>& nodes) {
  std::vector<std::string> parts;
  for (NodeId id : nodes) {
    const Node& node = graph.node(id);
    OpSignature signature = signature_of(graph, node);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      ValueId input = node.inputs[i];
      if (input == kNoValue) continue;
      auto inside = std::find(nodes.begin(), nodes.end(), graph.value(input).producer);
      if (graph.value(input).producer >= 0 && inside != nodes.end())
        signature.input_types[i] = fmt::format("#{}", inside - nodes.begin());
      else if (derived[static_cast<size_t>(input)])
        signature.input_types[i] = "const " + signature.input_types[i];
    }
    parts.push_back(signature.key());
  }
  return canonical_key(fmt::format("{}", fmt::join(parts, " ; ")));
}

bool computed_from_constants(const std::vector<bool>& derived, const Node& node) {
  if (node.def->traits.type_only) return true;
  for (ValueId input : node.inputs)
    if (input != kNoValue && !derived[static_cast<size_t>(input)]) return false;
  return true;
}

}  // namespace

std::vector<bool> constant_derived_values(const Graph& graph) {
  std::vector<bool> derived(graph.values().size(), false);
  for (ValueId id = 0; id < static_cast<ValueId>(graph.values().size()); ++id)
    derived[static_cast<size_t>(id)] = graph.is_constant(id);
  for (const Node& node : graph.nodes()) {
    bool from_constants = computed_from_constants(derived, node);
    for (ValueId output : node.outputs) derived[static_cast<size_t>(output)] = from_constants;
  }
  return derived;
}

bool folded_before_running(const Graph& graph, const Node& node) {
  if (node.def->traits.type_only) return true;
  for (ValueId input : node.inputs)
    if (input != kNoValue && !graph.is_constant(input)) return false;
  return true;
}

namespace {

// The CPU runtimes' groups: a head and up to three elementwise nodes after it.
constexpr int kMaxRuntimeEpilogue = 3;

KernelGrouping runtime_epilogue_groups(const Graph& graph) {
  KernelGrouping result{{}, std::vector<int>(graph.nodes().size(), -1), constant_derived_values(graph), graph.consumers(),
                        GroupingRule::runtime_epilogues};
  const std::vector<bool>& derived = result.constant_derived;
  std::vector<int>& group_of = result.group_of_node;
  for (NodeId head = 0; head < static_cast<NodeId>(graph.nodes().size()); ++head) {
    if (group_of[static_cast<size_t>(head)] >= 0 || computed_from_constants(derived, graph.node(head))) continue;
    int group = static_cast<int>(result.groups.size());
    std::vector<NodeId> nodes = {head};
    group_of[static_cast<size_t>(head)] = group;
    while (static_cast<int>(nodes.size()) <= kMaxRuntimeEpilogue && graph.node(nodes.back()).outputs.size() == 1) {
      ValueId out = graph.node(nodes.back()).outputs[0];
      NodeId next = only_reader(graph, result.readers, out);
      if (next < 0 || group_of[static_cast<size_t>(next)] >= 0 ||
          !joins_epilogue(graph, derived, graph.node(next), out, nodes))
        break;
      nodes.push_back(next);
      group_of[static_cast<size_t>(next)] = group;
    }
    result.groups.push_back({nodes, group_key(graph, derived, nodes)});
  }
  return result;
}

// How pet-gpu runs each node, as its plan asks (a node computed from constants only, or one pet-gpu
// refuses, left outside the grouping), and which nodes it refuses.
std::vector<gpu::NodeSupport> pet_gpu_support(const Graph& graph, const std::vector<bool>& derived,
                                              std::vector<NodeId>& refused) {
  const gpu::NodeSupport outside{gpu::NodeRole::outside, gpu::StepKind::elementwise};
  std::vector<gpu::NodeSupport> support;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) {
    const Node& node = graph.node(id);
    std::optional<gpu::NodeSupport> runnable =
        computed_from_constants(derived, node) ? outside : gpu::runnable_support(graph, node);
    if (!runnable) refused.push_back(id);
    support.push_back(runnable.value_or(outside));
  }
  return support;
}

KernelGrouping pet_gpu_step_groups(const Graph& graph) {
  KernelGrouping result{{}, std::vector<int>(graph.nodes().size(), -1), constant_derived_values(graph), graph.consumers(),
                        GroupingRule::pet_gpu_steps};
  std::vector<NodeId> refused;
  std::vector<gpu::NodeSupport> support = pet_gpu_support(graph, result.constant_derived, refused);
  gpu::Grouping steps = gpu::planned_steps(graph, support, result.constant_derived, result.readers);
  std::vector<KernelGroup> groups;
  for (const gpu::Step& step : steps.steps) groups.push_back({step.nodes, "", false});
  for (const gpu::Alias& alias : steps.aliases) groups.push_back({{alias.node}, "", true});
  for (NodeId id : refused) groups.push_back({{id}, "", false});
  std::stable_sort(groups.begin(), groups.end(),
                   [](const KernelGroup& a, const KernelGroup& b) { return a.nodes.back() < b.nodes.back(); });
  for (KernelGroup& group : groups) {
    for (NodeId id : group.nodes) result.group_of_node[static_cast<size_t>(id)] = static_cast<int>(result.groups.size());
    group.key = group_key(graph, result.constant_derived, group.nodes);
    result.groups.push_back(std::move(group));
  }
  return result;
}

}  // namespace

KernelGrouping kernel_groups(const Graph& graph, GroupingRule rule) {
  return rule == GroupingRule::pet_gpu_steps ? pet_gpu_step_groups(graph) : runtime_epilogue_groups(graph);
}

std::string context_class(const Graph& graph, const KernelGroup& group) {
  std::vector<std::string> ops;
  for (NodeId id : group.nodes) {
    const Node& node = graph.node(id);
    ops.push_back(node.op());
    if (std::optional<std::string> activation = ops::activation_op(node.attrs)) ops.push_back(*activation);
  }
  return fmt::format("{}", fmt::join(ops, "+"));
}

Graph kernel_group_model(const Graph& graph, const KernelGroup& group) {
  Graph model;
  model.name = "kernel";
  model.opset = graph.opset;
  std::map<ValueId, ValueId> mapped;
  std::vector<bool> derived = constant_derived_values(graph);
  std::map<ValueId, Tensor> computed;
  auto bring = [&](ValueId value) -> ValueId {
    if (value == kNoValue) return kNoValue;
    if (auto found = mapped.find(value); found != mapped.end()) return found->second;
    const Value& source = graph.value(value);
    ValueId copy = derived[static_cast<size_t>(value)]
                       ? model.add_constant(source.name, computed_constant(graph, value, computed))
                       : model.add_input(source.name, source.type);
    mapped.emplace(value, copy);
    return copy;
  };
  Consumers readers = graph.consumers();
  for (NodeId id : group.nodes) {
    const Node& node = graph.node(id);
    std::vector<ValueId> inputs;
    for (ValueId input : node.inputs) inputs.push_back(bring(input));
    std::vector<std::string> names;
    for (ValueId output : node.outputs) names.push_back(graph.value(output).name);
    std::vector<ValueId> outputs = model.add_node(node.op(), node.attrs, inputs, node.name, names);
    PET_CHECK(outputs.size() == node.outputs.size(), "node " + node.name);
    for (size_t i = 0; i < outputs.size(); ++i) mapped[node.outputs[i]] = outputs[i];
  }
  auto read_outside = [&](ValueId value) {
    if (graph.is_output(value)) return true;
    for (NodeId reader : readers[static_cast<size_t>(value)])
      if (std::find(group.nodes.begin(), group.nodes.end(), reader) == group.nodes.end()) return true;
    return false;
  };
  for (NodeId id : group.nodes)
    for (ValueId output : graph.node(id).outputs)
      if (read_outside(output)) model.add_output(mapped.at(output));
  if (model.outputs().empty())
    for (ValueId output : graph.node(group.nodes.back()).outputs) model.add_output(mapped.at(output));
  return model;
}

}  // namespace pet::cost
