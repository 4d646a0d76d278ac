// Fuses Layout + Overwrite (+ Relu) chains into LayoutOverwrite nodes (see fuse_corrections.h).
#include "corrector/fuse_corrections.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/ops/fused_activation.h"

namespace pet::corrector {
namespace {

// A Layout node, the Overwrite nodes that patch its output, in order, and the activation that
// reads the last patched value (-1 when none).
struct Chain {
  NodeId layout;
  std::vector<NodeId> overwrites;
  NodeId activation = -1;
};

// The single node reading `value`, when the value is no graph output; otherwise -1.
NodeId sole_reader_of(const Graph& graph, const Consumers& consumers, ValueId value) {
  const auto& outputs = graph.outputs();
  if (std::find(outputs.begin(), outputs.end(), value) != outputs.end()) return -1;
  const auto& readers = consumers[static_cast<size_t>(value)];
  return readers.size() == 1 ? readers[0] : -1;
}

// The single node reading `value`, when that node is an Overwrite reading it as its base and the
// value is no graph output; otherwise -1.
NodeId sole_overwrite_of(const Graph& graph, const Consumers& consumers, ValueId value) {
  NodeId reader = sole_reader_of(graph, consumers, value);
  if (reader < 0) return -1;
  const Node& node = graph.node(reader);
  bool base_only = node.inputs[0] == value && std::count(node.inputs.begin(), node.inputs.end(), value) == 1;
  return node.op() == "Overwrite" && base_only ? reader : -1;
}

// The single reader of `value` when it is an activation the fused node can apply; otherwise -1.
NodeId sole_activation_of(const Graph& graph, const Consumers& consumers, ValueId value) {
  NodeId reader = sole_reader_of(graph, consumers, value);
  if (reader < 0) return -1;
  const Node& node = graph.node(reader);
  bool fusable = ops::activation_for_op(node.op()) && node.inputs.size() == 1 && node.attrs.entries().empty();
  return fusable ? reader : -1;
}

std::vector<Chain> find_chains(const Graph& graph) {
  auto consumers = graph.consumers();
  std::vector<Chain> chains;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) {
    if (graph.node(id).op() != "Layout") continue;
    Chain chain{id, {}};
    ValueId value = graph.node(id).outputs[0];
    for (NodeId next; (next = sole_overwrite_of(graph, consumers, value)) != -1; value = graph.node(next).outputs[0])
      chain.overwrites.push_back(next);
    if (chain.overwrites.empty()) continue;
    chain.activation = sole_activation_of(graph, consumers, value);
    chains.push_back(std::move(chain));
  }
  return chains;
}

// A fused node's output name, and the name of the chain output it replaces.
struct Rename {
  std::string from, to;
};

// Adds the fused node for one chain and points the chain's users at it; returns the chain's
// nodes, now dead.
std::vector<NodeId> fuse_chain(Graph& graph, const Chain& chain, std::vector<Rename>& renames) {
  const Node& layout = graph.node(chain.layout);
  Attributes attrs = layout.attrs;
  std::vector<int64_t> offsets;
  std::vector<ValueId> inputs = {layout.inputs[0]};
  for (NodeId id : chain.overwrites) {
    const Node& overwrite = graph.node(id);
    const auto& own = overwrite.attrs.get_ints("offsets");
    offsets.insert(offsets.end(), own.begin(), own.end());
    inputs.push_back(overwrite.inputs[1]);
  }
  attrs.set("offsets", offsets);
  if (chain.activation >= 0) attrs.set(ops::kActivationAttr, *ops::activation_for_op(graph.node(chain.activation).op()));
  std::string name = layout.name;
  NodeId last_node = chain.activation >= 0 ? chain.activation : chain.overwrites.back();
  ValueId last = graph.node(last_node).outputs[0];
  std::string final_name = graph.value(last).name;
  ValueId fused = graph.add_node1("LayoutOverwrite", std::move(attrs), std::move(inputs), name + "_fused");
  graph.replace_uses(last, fused);
  renames.push_back({graph.value(fused).name, final_name});
  std::vector<NodeId> dead = chain.overwrites;
  dead.push_back(chain.layout);
  if (chain.activation >= 0) dead.push_back(chain.activation);
  return dead;
}

}  // namespace

int fuse_corrections(Graph& graph) {
  std::vector<Chain> chains = find_chains(graph);
  if (chains.empty()) return 0;
  std::vector<NodeId> dead;
  std::vector<Rename> renames;
  for (const Chain& chain : chains) {
    std::vector<NodeId> nodes = fuse_chain(graph, chain, renames);
    dead.insert(dead.end(), nodes.begin(), nodes.end());
  }
  graph.remove_nodes(dead);
  graph.sort_topologically();
  // The chain outputs' names are free now: the fused outputs take them over.
  for (const Rename& rename : renames) graph.rename_value(*graph.find_value(rename.from), rename.to);
  return static_cast<int>(chains.size());
}

}  // namespace pet::corrector
