// Stages: chains of subprograms joined by unary elementwise ops, the units a layout carries through.
#include <algorithm>

#include "core/error.h"
#include "search/generate/partition.h"
#include "search/passes/constant_source.h"

namespace pet::search {
namespace {

// The op reads `value` and otherwise only constants, and writes one output of the same type.
bool unary_elementwise_on(const Graph& graph, const Node& node, ValueId value) {
  if (!node.def->traits.elementwise || node.outputs.size() != 1 ||
      graph.value(node.outputs[0]).type != graph.value(value).type)
    return false;
  return std::all_of(node.inputs.begin(), node.inputs.end(), [&](ValueId in) {
    return in == value || (in != kNoValue && constant_source(graph, in) != nullptr);
  });
}

// Where the site's one output flows through unary elementwise ops read once each: the node that
// reads the end of that path, if it is the only reader and belongs to a site. `between`, when
// given, receives the elementwise nodes on the path.
std::optional<size_t> next_site(const Graph& graph, const Consumers& consumers,
                                const std::vector<int>& site_of_node, const Subprogram& sub,
                                std::vector<NodeId>* between = nullptr) {
  if (sub.outputs.size() != 1) return std::nullopt;
  ValueId value = sub.outputs[0];
  while (!graph.is_output(value) && consumers[static_cast<size_t>(value)].size() == 1) {
    NodeId reader = consumers[static_cast<size_t>(value)][0];
    if (int site = site_of_node[static_cast<size_t>(reader)]; site >= 0) return static_cast<size_t>(site);
    const Node& node = graph.node(reader);
    if (!unary_elementwise_on(graph, node, value)) return std::nullopt;
    if (between) between->push_back(reader);
    value = node.outputs[0];
  }
  return std::nullopt;
}

// Per parent node, the linear subprogram it belongs to (-1: none).
std::vector<int> site_of_nodes(const Graph& graph, const std::vector<Subprogram>& subs) {
  std::vector<int> site_of_node(graph.nodes().size(), -1);
  for (size_t s = 0; s < subs.size(); ++s)
    if (subs[s].kind == SubprogramKind::linear)
      for (NodeId node : subs[s].nodes) site_of_node[static_cast<size_t>(node)] = static_cast<int>(s);
  return site_of_node;
}

}  // namespace

std::vector<std::vector<size_t>> stage_windows(const Graph& graph, const std::vector<Subprogram>& subs, int max_sites) {
  std::vector<std::vector<size_t>> windows;
  if (max_sites < 2) return windows;
  std::vector<int> site_of_node = site_of_nodes(graph, subs);
  auto consumers = graph.consumers();
  std::vector<std::optional<size_t>> next(subs.size());
  std::vector<bool> has_previous(subs.size(), false);
  for (size_t s = 0; s < subs.size(); ++s) {
    if (subs[s].kind != SubprogramKind::linear) continue;
    next[s] = next_site(graph, consumers, site_of_node, subs[s]);
    if (next[s] && *next[s] != s && !has_previous[*next[s]]) has_previous[*next[s]] = true;
    else next[s].reset();
  }
  for (size_t first = 0; first < subs.size(); ++first) {
    if (has_previous[first] || !next[first]) continue;
    std::vector<size_t> chain{first};
    while (next[chain.back()]) chain.push_back(*next[chain.back()]);
    for (size_t start = 0; start + 1 < chain.size(); ++start)
      for (size_t length = 2; length <= static_cast<size_t>(max_sites) && start + length <= chain.size(); ++length)
        windows.emplace_back(chain.begin() + static_cast<std::ptrdiff_t>(start),
                             chain.begin() + static_cast<std::ptrdiff_t>(start + length));
  }
  return windows;
}

std::vector<std::vector<size_t>> longest_stage_windows(const Graph& graph, const std::vector<Subprogram>& subs,
                                                      int max_sites) {
  std::vector<std::vector<size_t>> windows = stage_windows(graph, subs, max_sites), longest;
  auto inside = [](const std::vector<size_t>& small, const std::vector<size_t>& large) {
    return small.size() < large.size() && std::search(large.begin(), large.end(), small.begin(), small.end()) != large.end();
  };
  for (const auto& window : windows)
    if (std::none_of(windows.begin(), windows.end(), [&](const auto& other) { return inside(window, other); }))
      longest.push_back(window);
  return longest;
}

Graph stage_program(const Graph& graph, const std::vector<Subprogram>& subs, const std::vector<size_t>& window) {
  auto consumers = graph.consumers();
  std::vector<int> site_of_node = site_of_nodes(graph, subs);
  std::vector<NodeId> nodes;
  for (size_t k = 0; k < window.size(); ++k) {
    const Subprogram& sub = subs.at(window[k]);
    nodes.insert(nodes.end(), sub.nodes.begin(), sub.nodes.end());
    if (k + 1 < window.size())
      PET_CHECK(next_site(graph, consumers, site_of_node, sub, &nodes) == window[k + 1],
                "a stage window's sites follow each other (stage_windows)");
  }
  std::sort(nodes.begin(), nodes.end());
  Subprogram stage = make_subprogram(graph, nodes, SubprogramKind::linear, consumers);
  Graph program;
  program.name = graph.name + " stage " + stage.location;
  program.opset = graph.opset;
  std::vector<ValueId> bound;
  for (ValueId input : stage.inputs) {
    const Value& value = graph.value(input);
    bound.push_back(value.constant ? program.add_constant(value.name, *value.constant)
                                   : program.add_input(value.name, value.type));
  }
  for (ValueId output : insert_graph(program, stage.program, bound, "")) program.add_output(output);
  program.validate();
  return program;
}

}  // namespace pet::search
