// CSE: candidates are bucketed by structural value hash, then compared exactly (a hash is never
// trusted to mean equality).
#include "search/passes/eliminate_common_subexpressions.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "core/structural_hash.h"

namespace pet {
namespace {

bool same_input(const Graph& graph, ValueId a, ValueId b) {
  if (a == b) return true;
  if (!graph.is_constant(a) || !graph.is_constant(b)) return false;
  const Tensor& x = *graph.value(a).constant;
  const Tensor& y = *graph.value(b).constant;
  // An empty tensor's storage may be null, which memcmp must not see (found by UBSan).
  return x.type() == y.type() && (x.nbytes() == 0 || std::memcmp(x.raw(), y.raw(), x.nbytes()) == 0);
}

bool same_inputs(const Graph& graph, const std::vector<ValueId>& a, const std::vector<ValueId>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_input(graph, a[i], b[i])) return false;
  return true;
}

bool same_computation(const Graph& graph, const Node& a, const Node& b) {
  if (a.def != b.def || a.attrs != b.attrs || a.outputs.size() != b.outputs.size()) return false;
  if (same_inputs(graph, a.inputs, b.inputs)) return true;
  if (!a.def->traits.commutative || a.inputs.size() < 2) return false;
  std::vector<ValueId> swapped = b.inputs;
  std::swap(swapped[0], swapped[1]);
  return same_inputs(graph, a.inputs, swapped);
}

// Whether `later` can be dropped for `earlier`: each of its graph outputs can pass its name to
// the earlier node's output (which must then not be a graph output or an already renamed value).
bool names_survive(const Graph& graph, const Node& earlier, const Node& later, const std::vector<bool>& renamed) {
  for (size_t k = 0; k < later.outputs.size(); ++k) {
    if (!graph.is_output(later.outputs[k])) continue;
    ValueId keep = earlier.outputs[k];
    if (graph.is_output(keep) || renamed[static_cast<size_t>(keep)]) return false;
  }
  return true;
}

}  // namespace

int eliminate_common_subexpressions(Graph& graph) {
  std::vector<uint64_t> hashes = value_hashes(graph);
  std::map<uint64_t, std::vector<NodeId>> kept_by_hash;  // first output's hash -> surviving nodes
  std::vector<bool> renamed(graph.values().size(), false);
  std::vector<NodeId> removed;
  std::vector<std::pair<ValueId, std::string>> renames;  // kept value, graph output name it takes
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()); ++n) {
    const Node& node = graph.node(n);
    auto& bucket = kept_by_hash[hashes[static_cast<size_t>(node.outputs[0])]];
    auto match = std::find_if(bucket.begin(), bucket.end(), [&](NodeId earlier) {
      return same_computation(graph, graph.node(earlier), node) && names_survive(graph, graph.node(earlier), node, renamed);
    });
    if (match == bucket.end()) {
      bucket.push_back(n);
      continue;
    }
    const Node& earlier = graph.node(*match);
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      ValueId keep = earlier.outputs[k], drop = node.outputs[k];
      if (graph.is_output(drop)) {
        renames.emplace_back(keep, graph.value(drop).name);
        renamed[static_cast<size_t>(keep)] = true;
      }
      graph.replace_uses(drop, keep);
    }
    removed.push_back(n);
  }
  if (removed.empty()) return 0;
  std::vector<std::pair<std::string, std::string>> by_name;  // remove_nodes renumbers values
  for (const auto& [id, name] : renames) by_name.emplace_back(graph.value(id).name, name);
  graph.remove_nodes(removed);
  for (const auto& [old_name, new_name] : by_name) graph.rename_value(*graph.find_value(old_name), new_name);
  return static_cast<int>(removed.size());
}

}  // namespace pet
