// Multi-linear regions: each grows from one compute-heavy op through adjacent linear ops whose
// connecting value no other node reads, and stops at non-linear ops and multi-fan values.
#include "search/generate/partition.h"

#include <algorithm>
#include <optional>
#include <set>

#include "core/error.h"
#include "core/structural_hash.h"
#include "mutant/generator.h"
#include "verifier/element_domain.h"

namespace pet::search {
namespace {

// The examiner compares programs of linear ops, at the element types the gate allows (f32 for
// arithmetic), so only those may join a region.
bool examinable(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  const OpTraits& traits = node.def->traits;
  if (traits.linearity == Linearity::None || !node.def->eval_point || !node.def->propagate_boxes) return false;
  if (traits.linear_when && !traits.linear_when(node.attrs)) return false;
  return may_rewrite(graph, id);
}

// The region stays convex: no path leaves it and re-enters it through outside nodes (contracting
// it to one node must not create a cycle). Nodes are in topological order, so the forward search
// stops past the last region node.
bool convex(const Graph& graph, const Consumers& consumers, const std::set<NodeId>& region) {
  NodeId last = *region.rbegin();
  std::vector<bool> seen(graph.nodes().size(), false);
  std::vector<NodeId> stack;
  auto push_outside_consumers = [&](NodeId node) {
    for (ValueId out : graph.node(node).outputs)
      for (NodeId next : consumers[static_cast<size_t>(out)])
        if (!region.count(next) && next < last && !seen[static_cast<size_t>(next)]) {
          seen[static_cast<size_t>(next)] = true;
          stack.push_back(next);
        }
  };
  for (NodeId node : region) push_outside_consumers(node);
  while (!stack.empty()) {
    NodeId node = stack.back();
    stack.pop_back();
    for (ValueId out : graph.node(node).outputs)
      for (NodeId next : consumers[static_cast<size_t>(out)])
        if (region.count(next)) return false;
    push_outside_consumers(node);
  }
  return true;
}

struct Grower {
  const Graph& graph;
  const PartitionOptions& options;
  Consumers consumers = graph.consumers();
  std::vector<bool> taken = std::vector<bool>(graph.nodes().size(), false);

  bool eligible(NodeId node, int compute_ops) const {
    const Node& n = graph.node(node);
    if (taken[static_cast<size_t>(node)] || !examinable(graph, node)) return false;
    return !n.def->traits.compute_heavy || compute_ops < options.max_compute_ops;
  }

  // A value may become internal only when its one reader is in the region and it is no graph output.
  bool single_reader(ValueId value, NodeId reader) const {
    const auto& readers = consumers[static_cast<size_t>(value)];
    return readers.size() == 1 && readers[0] == reader && !graph.is_output(value);
  }

  // The next node to absorb: a reader of a region output (downstream first), else the producer
  // of a region input; each only when the connecting values stay single-fan.
  std::optional<NodeId> next(const std::set<NodeId>& region, int compute_ops) const {
    for (NodeId node : region)
      for (ValueId out : graph.node(node).outputs) {
        const auto& readers = consumers[static_cast<size_t>(out)];
        if (readers.size() != 1 || graph.is_output(out) || region.count(readers[0])) continue;
        if (eligible(readers[0], compute_ops) && convex_with(region, readers[0])) return readers[0];
      }
    for (NodeId node : region)
      for (ValueId in : graph.node(node).inputs) {
        if (in == kNoValue) continue;
        NodeId producer = graph.value(in).producer;
        if (producer < 0 || region.count(producer) || !eligible(producer, compute_ops)) continue;
        bool all_inside = true;
        for (ValueId out : graph.node(producer).outputs) {
          const auto& readers = consumers[static_cast<size_t>(out)];
          all_inside = all_inside && !graph.is_output(out) && !readers.empty() &&
                       std::all_of(readers.begin(), readers.end(), [&](NodeId r) { return region.count(r) != 0; });
        }
        if (all_inside && single_reader(in, node) && convex_with(region, producer)) return producer;
      }
    return std::nullopt;
  }

  bool convex_with(std::set<NodeId> region, NodeId extra) const {
    region.insert(extra);
    return convex(graph, consumers, region);
  }

  std::set<NodeId> grow(NodeId seed) {
    std::set<NodeId> region{seed};
    int compute_ops = 1;
    while (static_cast<int>(region.size()) < options.max_ops) {
      std::optional<NodeId> node = next(region, compute_ops);
      if (!node) break;
      region.insert(*node);
      if (graph.node(*node).def->traits.compute_heavy) ++compute_ops;
    }
    for (NodeId node : region) taken[static_cast<size_t>(node)] = true;
    return region;
  }
};

}  // namespace

Subprogram make_subprogram(const Graph& parent, std::vector<NodeId> nodes, SubprogramKind kind) {
  return make_subprogram(parent, std::move(nodes), kind, parent.consumers());
}

Subprogram make_subprogram(const Graph& parent, std::vector<NodeId> nodes, SubprogramKind kind,
                           const Consumers& consumers) {
  std::sort(nodes.begin(), nodes.end());
  std::set<NodeId> inside(nodes.begin(), nodes.end());
  Subprogram sub;
  sub.nodes = nodes;
  sub.kind = kind;
  sub.program.name = to_string(kind);
  sub.program.opset = parent.opset;
  std::vector<ValueId> local(parent.values().size(), kNoValue);
  for (NodeId id : nodes) {
    const Node& node = parent.node(id);
    std::vector<ValueId> inputs;
    for (ValueId in : node.inputs) {
      if (in != kNoValue && local[static_cast<size_t>(in)] == kNoValue) {
        PET_CHECK(!inside.count(parent.value(in).producer), "region nodes are not in topological order");
        sub.inputs.push_back(in);
        local[static_cast<size_t>(in)] = sub.program.add_input(parent.value(in).name, parent.value(in).type);
      }
      inputs.push_back(in == kNoValue ? kNoValue : local[static_cast<size_t>(in)]);
    }
    std::vector<std::string> names;
    for (ValueId out : node.outputs) names.push_back(parent.value(out).name);
    std::vector<ValueId> outs = sub.program.add_node(node.op(), node.attrs, inputs, node.name, names);
    for (size_t i = 0; i < outs.size(); ++i) local[static_cast<size_t>(node.outputs[i])] = outs[i];
    sub.location += (sub.location.empty() ? "" : ", ") + node.name;
  }
  for (NodeId id : nodes)
    for (ValueId out : parent.node(id).outputs) {
      const auto& readers = consumers[static_cast<size_t>(out)];
      bool read_outside = std::any_of(readers.begin(), readers.end(), [&](NodeId r) { return !inside.count(r); });
      if (read_outside || parent.is_output(out)) {
        sub.outputs.push_back(out);
        sub.program.add_output(local[static_cast<size_t>(out)]);
      }
    }
  return sub;
}

std::vector<Subprogram> partition(const Graph& graph, const PartitionOptions& options) {
  Grower grower{graph, options};
  std::vector<Subprogram> regions;
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    auto seed = static_cast<NodeId>(n);
    if (!graph.node(seed).def->traits.compute_heavy || !grower.eligible(seed, 0)) continue;
    std::set<NodeId> region = grower.grow(seed);
    regions.push_back(make_subprogram(graph, {region.begin(), region.end()}, SubprogramKind::linear, grower.consumers));
  }
  std::stable_sort(regions.begin(), regions.end(),
                   [](const Subprogram& a, const Subprogram& b) { return a.nodes.front() < b.nodes.front(); });
  return regions;
}

// Groups first: merging parallel ops saves whole launches.
std::vector<Subprogram> subprograms_to_mutate(const Graph& graph, const PartitionOptions& options) {
  std::vector<Subprogram> subs = parallel_groups(graph, options);
  std::vector<Subprogram> regions = partition(graph, options);
  subs.insert(subs.end(), std::make_move_iterator(regions.begin()), std::make_move_iterator(regions.end()));
  std::erase_if(subs, [](const Subprogram& sub) { return mutant::has_empty_tensor(sub.program); });
  return subs;
}

uint64_t subprogram_key(const Subprogram& sub) {
  return structural_hash(sub.program) ^ (sub.kind == SubprogramKind::group ? 0x9e3779b97f4a7c15ULL : 0);
}

}  // namespace pet::search
