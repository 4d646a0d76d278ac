// Groups of independent compute ops of one kind that a mutant may merge into one larger op.
#include <algorithm>
#include <map>
#include <set>

#include "search/generate/partition.h"
#include "verifier/element_domain.h"

namespace pet::search {
namespace {

// descendants[n] holds bit m when node m reads, directly or not, an output of node n.
std::vector<std::vector<uint64_t>> descendant_sets(const Graph& graph,
                                                   const Consumers& consumers) {
  size_t count = graph.nodes().size(), words = (count + 63) / 64;
  std::vector<std::vector<uint64_t>> descendants(count);
  for (std::vector<uint64_t>& bits : descendants) bits.assign(words, 0);
  for (size_t n = count; n-- > 0;)
    for (ValueId out : graph.nodes()[n].outputs)
      for (NodeId reader : consumers[static_cast<size_t>(out)]) {
        auto r = static_cast<size_t>(reader);
        descendants[n][r / 64] |= uint64_t{1} << (r % 64);
        for (size_t w = 0; w < words; ++w) descendants[n][w] |= descendants[r][w];
      }
  return descendants;
}

bool reaches(const std::vector<std::vector<uint64_t>>& descendants, NodeId from, NodeId to) {
  auto t = static_cast<size_t>(to);
  return (descendants[static_cast<size_t>(from)][t / 64] >> (t % 64)) & 1;
}

bool groupable(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  const OpTraits& traits = node.def->traits;
  if (!traits.compute_heavy || traits.linearity == Linearity::None || !node.def->eval_point ||
      !node.def->propagate_boxes)
    return false;
  return may_rewrite(graph, id);
}

// Type key of a node: op and every input type, so nodes with equal keys could run as one batch.
std::string type_key(const Graph& graph, const Node& node) {
  std::string key = node.op();
  for (ValueId id : node.inputs) key += "|" + (id == kNoValue ? std::string("-") : graph.value(id).type.to_string());
  return key;
}

}  // namespace

std::vector<Subprogram> parallel_groups(const Graph& graph, const PartitionOptions& options) {
  Consumers consumers = graph.consumers();
  std::vector<std::vector<uint64_t>> descendants = descendant_sets(graph, consumers);
  std::vector<bool> grouped(graph.nodes().size(), false);
  std::vector<std::vector<NodeId>> groups;
  // Greedily takes candidates in node order that have no path to or from a taken one.
  auto take = [&](const std::vector<NodeId>& candidates) {
    std::vector<NodeId> group;
    for (NodeId node : candidates) {
      if (grouped[static_cast<size_t>(node)] || static_cast<int>(group.size()) >= options.max_group) continue;
      bool independent = std::none_of(group.begin(), group.end(), [&](NodeId other) {
        return reaches(descendants, node, other) || reaches(descendants, other, node);
      });
      if (independent) group.push_back(node);
    }
    if (group.size() < 2) return;
    for (NodeId node : group) grouped[static_cast<size_t>(node)] = true;
    groups.push_back(group);
  };
  // Readers of one value first (Inception branches, Q/K/V), keyed by (value, op) in value order.
  std::map<std::pair<ValueId, std::string>, std::vector<NodeId>> by_input;
  std::map<std::string, std::vector<NodeId>> by_types;
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    const Node& node = graph.nodes()[n];
    if (!groupable(graph, static_cast<NodeId>(n))) continue;
    std::set<ValueId> read;
    for (ValueId id : node.inputs)
      if (id != kNoValue && !graph.is_constant(id)) read.insert(id);
    for (ValueId id : read) by_input[{id, node.op()}].push_back(static_cast<NodeId>(n));
    by_types[type_key(graph, node)].push_back(static_cast<NodeId>(n));
  }
  for (const auto& [key, nodes] : by_input)
    if (nodes.size() >= 2) take(nodes);
  for (const auto& [key, nodes] : by_types)
    if (nodes.size() >= 2) take(nodes);
  std::sort(groups.begin(), groups.end());
  std::vector<Subprogram> result;
  for (const std::vector<NodeId>& group : groups) result.push_back(make_subprogram(graph, group, SubprogramKind::group, consumers));
  return result;
}

}  // namespace pet::search
