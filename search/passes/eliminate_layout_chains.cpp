// Layout chains are found from their last node backwards; each sweep rewrites chains that share
// no node, and the finalize fixed point picks up whatever a rewrite exposes.
#include "search/passes/eliminate_layout_chains.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "core/error.h"
#include "core/executor.h"
#include "core/memo.h"
#include "core/ops/fused_activation.h"
#include "verifier/axioms/layout_composition.h"
#include "verifier/element_domain.h"

namespace pet {
namespace {

constexpr int64_t kMaxExactIota = int64_t{1} << 24;  // f32 holds every integer up to here exactly
constexpr size_t kRememberedChains = 4096;

// A chain of layout nodes moves elements only, so it cancels and composes over every element type
// (verifier/element_domain.h); moving an elementwise op across it asks that gate first.
bool is_layout_node(const Node& node) {
  return node.def->traits.layout_only && ops::fused_activation(node.attrs) == "none" && node.outputs.size() == 1 &&
         node.inputs.size() == 1 && node.inputs[0] != kNoValue;
}

bool is_unary_elementwise(const Graph& graph, const Node& node) {
  return node.def->traits.elementwise && node.outputs.size() == 1 && node.inputs.size() == 1 &&
         node.inputs[0] != kNoValue &&
         graph.value(node.inputs[0]).type.shape == graph.value(node.outputs[0]).type.shape;
}

// i + 1 (or -(i + 1)) at flat position i: distinct values no constant fill can match both times.
Tensor iota(const Shape& shape, float sign) {
  Tensor tensor(DType::f32, shape);
  auto data = tensor.mutable_f32();
  for (size_t i = 0; i < data.size(); ++i) data[i] = sign * static_cast<float>(i + 1);
  return tensor;
}

// Whether running the layout nodes in order on any tensor of `input`'s shape gives it back.
bool run_chain_on_iota(const Graph& graph, const std::vector<const Node*>& chain, const Shape& shape);

// The answer depends only on the chain's ops, attributes and input shape; the search's scorer asks
// for the same chains over and over, so answers are remembered.
bool composes_to_identity(const Graph& graph, const std::vector<const Node*>& chain, ValueId input) {
  const Shape& shape = graph.value(input).type.shape;
  if (graph.value(chain.back()->outputs[0]).type.shape != shape || shape.numel() > kMaxExactIota) return false;
  std::string key = shape.to_string();
  for (const Node* node : chain)
    key += "|" + node->op() + node->attrs.to_string() + ":" +
           graph.value(node->outputs[0]).type.shape.to_string();
  static Memo<bool> memo(kRememberedChains);
  if (std::optional<bool> known = memo.find(key)) return *known;
  bool identity = run_chain_on_iota(graph, chain, shape);
  memo.remember(std::move(key), identity);
  return identity;
}

bool run_chain_on_iota(const Graph& graph, const std::vector<const Node*>& chain, const Shape& shape) {
  for (float sign : {1.0f, -1.0f}) {
    Tensor start = iota(shape, sign), current = start;
    for (const Node* node : chain) {
      TensorType type{DType::f32, graph.value(node->outputs[0]).type.shape};
      current = execute_node(*node, {&current}, {type}).at(0);
    }
    if (start.nbytes() > 0 && std::memcmp(current.raw(), start.raw(), start.nbytes()) != 0) return false;
  }
  return true;
}

// One rewrite: `replaced` (the last node's output) is read from `replacement` afterwards, and
// `dead` nodes are removed. Each (value, old value) in `renames` gives the value the old one's
// name once the old one is gone: new values keep the names of those they stand for.
struct Rewrite {
  ValueId replaced;
  ValueId replacement;
  std::vector<NodeId> dead;
  std::vector<std::pair<ValueId, ValueId>> renames;
};

class ChainFinder {
 public:
  explicit ChainFinder(Graph& graph) : graph_(graph), users_(graph.consumers()), touched_(graph.nodes().size()) {}

  std::vector<Rewrite> run() {
    auto count = static_cast<NodeId>(graph_.nodes().size());
    for (NodeId last = 0; last < count; ++last)
      if (!touched_[static_cast<size_t>(last)] && is_layout_node(graph_.node(last))) try_chain_ending_at(last);
    return std::move(rewrites_);
  }

 private:
  bool only_reader(ValueId value, NodeId reader) const {
    const auto& readers = users_[static_cast<size_t>(value)];
    return readers.size() == 1 && readers[0] == reader && !graph_.is_output(value);
  }

  NodeId producer(ValueId value) const { return graph_.value(value).producer; }

  void try_chain_ending_at(NodeId last) {
    const Node& end = graph_.node(last);
    if (composes_to_identity(graph_, {&end}, end.inputs[0])) return bypass({last}, end.inputs[0]);
    // Walk back over unary elementwise nodes that feed only the chain.
    std::vector<NodeId> elementwise;  // nearest to `last` first
    ValueId value = end.inputs[0];
    NodeId reader = last;
    for (NodeId p; (p = producer(value)) >= 0 && is_unary_elementwise(graph_, graph_.node(p)) && only_reader(value, reader);
         reader = p, value = graph_.node(p).inputs[0])
      elementwise.push_back(p);
    NodeId first = producer(value);
    if (first < 0 || !is_layout_node(graph_.node(first))) return;
    const Node& start = graph_.node(first);
    if (composes_to_identity(graph_, {&start, &end}, start.inputs[0])) {
      if (!elementwise.empty()) return move_elementwise(first, elementwise, last);
      return bypass(only_reader(value, last) ? std::vector<NodeId>{first, last} : std::vector<NodeId>{last},
                    start.inputs[0]);
    }
    if (elementwise.empty() && start.op() == "Layout" && end.op() == "Layout" && only_reader(value, last))
      compose(first, last);
  }

  // Rewrites share no node, and none reads a value another rewrite replaces.
  bool conflicts(const std::vector<NodeId>& nodes, ValueId source) const {
    NodeId source_producer = producer(source);
    return (source_producer >= 0 && touched_[static_cast<size_t>(source_producer)]) ||
           std::any_of(nodes.begin(), nodes.end(), [&](NodeId n) { return touched_[static_cast<size_t>(n)]; });
  }

  void commit(Rewrite rewrite, const std::vector<NodeId>& involved) {
    for (NodeId n : involved) touched_[static_cast<size_t>(n)] = true;
    rewrites_.push_back(std::move(rewrite));
  }

  // The last node's readers read `source`; a graph output keeps its name only if `source` can take it.
  void bypass(const std::vector<NodeId>& dead, ValueId source) {
    if (conflicts(dead, source)) return;
    ValueId replaced = graph_.node(dead.back()).outputs[0];
    if (!graph_.is_output(replaced)) return commit({replaced, source, dead, {}}, dead);
    if (producer(source) < 0 || graph_.is_output(source)) return;
    commit({replaced, source, dead, {{source, replaced}}}, dead);
  }

  void move_elementwise(NodeId first, const std::vector<NodeId>& elementwise, NodeId last) {
    std::vector<NodeId> involved = elementwise;
    involved.push_back(first);
    involved.push_back(last);
    ValueId current = graph_.node(first).inputs[0];
    if (conflicts(involved, current) || !may_rewrite(graph_, involved)) return;
    std::vector<std::pair<ValueId, ValueId>> renames;
    for (auto it = elementwise.rbegin(); it != elementwise.rend(); ++it) {
      const Node& node = graph_.node(*it);
      Attributes attrs = node.attrs;
      std::string op = node.op(), name = node.name;
      ValueId old = node.outputs[0];
      current = graph_.add_node1(op, std::move(attrs), {current}, name);
      renames.emplace_back(current, old);
    }
    ValueId replaced = graph_.node(last).outputs[0];
    renames.back().second = replaced;  // the last rebuilt value stands for the chain's output
    std::vector<NodeId> dead = elementwise;
    dead.push_back(last);
    if (only_reader(graph_.node(first).outputs[0], elementwise.back())) dead.push_back(first);
    commit({replaced, current, dead, std::move(renames)}, involved);
  }

  void compose(NodeId first, NodeId last) {
    const Node& start = graph_.node(first);
    if (conflicts({first, last}, start.inputs[0])) return;
    const Node& end = graph_.node(last);
    std::optional<Attributes> composed =
        axioms::compose_layouts(graph_.value(start.inputs[0]).type.shape, start.attrs, end.attrs);
    if (!composed) return;
    ValueId input = start.inputs[0], replaced = end.outputs[0];
    std::string name = end.name;
    ValueId merged = graph_.add_node1("Layout", std::move(*composed), {input}, name);
    PET_CHECK(graph_.value(merged).type == graph_.value(replaced).type, "composed Layout changed the output type");
    commit({replaced, merged, {first, last}, {{merged, replaced}}}, {first, last});
  }

  Graph& graph_;
  Consumers users_;
  std::vector<bool> touched_;
  std::vector<Rewrite> rewrites_;
};

}  // namespace

int eliminate_layout_chains(Graph& graph) {
  std::vector<Rewrite> rewrites = ChainFinder(graph).run();
  if (rewrites.empty()) return 0;
  std::vector<NodeId> dead;
  std::vector<std::pair<std::string, std::string>> renames;  // by name: remove_nodes renumbers values
  for (const Rewrite& rewrite : rewrites) {
    graph.replace_uses(rewrite.replaced, rewrite.replacement);
    dead.insert(dead.end(), rewrite.dead.begin(), rewrite.dead.end());
    for (const auto& [value, old] : rewrite.renames) renames.emplace_back(graph.value(value).name, graph.value(old).name);
  }
  graph.remove_nodes(dead);
  for (const auto& [from, to] : renames) graph.rename_value(*graph.find_value(from), to);
  graph.sort_topologically();
  return static_cast<int>(rewrites.size());
}

}  // namespace pet
