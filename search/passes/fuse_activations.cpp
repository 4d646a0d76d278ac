// Activation fusion: the producer takes the activation as its attribute where it stands, and its
// output (or a layout node's after it) the activation's output name.
#include "search/passes/fuse_activations.h"

#include <algorithm>

#include "core/ops/fused_activation.h"
#include "verifier/element_domain.h"

namespace pet {
namespace {

// One fusion: `producer` takes the activation that `activations` applied, through `layout`
// (-1 when the activation reads the producer directly; else activation k reads its output k).
struct Fusion {
  NodeId producer;
  NodeId layout;
  std::vector<NodeId> activations;
  std::string activation_value;  // "relu"
};

class FusionFinder {
 public:
  explicit FusionFinder(const Graph& graph) : graph_(graph), users_(graph.consumers()) {}

  // Fusions that share no node (a one-input LayoutOverwrite before a Relu could fuse either way).
  std::vector<Fusion> run() const {
    std::vector<Fusion> found;
    std::vector<bool> claimed(graph_.nodes().size(), false);
    auto claim = [&](Fusion fusion) {
      std::vector<NodeId> nodes = fusion.activations;
      nodes.push_back(fusion.producer);
      if (fusion.layout >= 0) nodes.push_back(fusion.layout);
      if (std::any_of(nodes.begin(), nodes.end(), [&](NodeId id) { return claimed[static_cast<size_t>(id)]; })) return;
      if (!may_rewrite(graph_, nodes)) return;
      for (NodeId id : nodes) claimed[static_cast<size_t>(id)] = true;
      found.push_back(std::move(fusion));
    };
    for (NodeId n = 0; n < static_cast<NodeId>(graph_.nodes().size()); ++n) {
      const Node& node = graph_.node(n);
      if (node.def->traits.layout_only) {
        if (auto fusion = through_layout(n)) claim(std::move(*fusion));
      } else if (auto value = activation_of(node); value && fusable_producer(node.inputs[0])) {
        claim({graph_.value(node.inputs[0]).producer, -1, {n}, *value});
      }
    }
    return found;
  }

 private:
  // The activation value a fusable unary activation node stands for.
  static std::optional<std::string> activation_of(const Node& node) {
    if (node.inputs.size() != 1 || node.inputs[0] == kNoValue || !node.attrs.entries().empty()) return std::nullopt;
    return ops::activation_for_op(node.op());
  }

  bool only_reader_and_internal(ValueId value) const {
    return users_[static_cast<size_t>(value)].size() == 1 && !graph_.is_output(value);
  }

  bool fusable_producer(ValueId value) const {
    NodeId producer = graph_.value(value).producer;
    if (producer < 0 || !only_reader_and_internal(value)) return false;
    const Node& node = graph_.node(producer);
    bool declares = std::any_of(node.def->attrs.begin(), node.def->attrs.end(),
                                [](const AttrSpec& spec) { return spec.name == ops::kActivationAttr; });
    return declares && ops::fused_activation(node.attrs) == "none" && node.outputs.size() == 1;
  }

  std::optional<Fusion> through_layout(NodeId n) const {
    const Node& layout = graph_.node(n);
    if (layout.inputs.size() != 1 || layout.inputs[0] == kNoValue || ops::fused_activation(layout.attrs) != "none" ||
        !fusable_producer(layout.inputs[0]))
      return std::nullopt;
    Fusion fusion{graph_.value(layout.inputs[0]).producer, n, {}, ""};
    for (ValueId output : layout.outputs) {
      if (!only_reader_and_internal(output)) return std::nullopt;
      NodeId reader = users_[static_cast<size_t>(output)][0];
      std::optional<std::string> value = activation_of(graph_.node(reader));
      if (!value || (!fusion.activation_value.empty() && *value != fusion.activation_value)) return std::nullopt;
      fusion.activation_value = *value;
      fusion.activations.push_back(reader);
    }
    return fusion;
  }

  const Graph& graph_;
  Consumers users_;
};

}  // namespace

// In place: each producer takes the activation as its attribute where it stands (a layout node
// after it stays as it is), the activations' readers read the producer's (or the layout's)
// outputs, which take the activations' output names once the activations are gone. Every node
// kept keeps its place, so the order stays topological and nothing is re-sorted.
int fuse_activations(Graph& graph) {
  std::vector<Fusion> fusions = FusionFinder(graph).run();
  if (fusions.empty()) return 0;
  std::vector<NodeId> removed;
  std::vector<std::pair<ValueId, ValueId>> renames;  // (value, activation output whose name it takes)
  // (activation output, what its readers read now): replaced once, after the loop. A producer
  // fused later may read an earlier activation's output; the replacement reaches it too.
  std::vector<std::pair<ValueId, ValueId>> replacements;
  for (const Fusion& fusion : fusions) {
    graph.set_node_attribute(fusion.producer, ops::kActivationAttr, fusion.activation_value);
    std::vector<ValueId> results = graph.node(fusion.layout >= 0 ? fusion.layout : fusion.producer).outputs;
    for (size_t k = 0; k < results.size(); ++k) {
      ValueId activated = graph.node(fusion.activations[k]).outputs[0];
      replacements.emplace_back(activated, results[k]);
      renames.emplace_back(results[k], activated);
      removed.push_back(fusion.activations[k]);
    }
  }
  graph.replace_uses(replacements);
  // remove_nodes renumbers values: take the names first, apply them once the old values are gone.
  std::vector<std::pair<std::string, std::string>> by_name;
  for (const auto& [value, old] : renames) by_name.emplace_back(graph.value(value).name, graph.value(old).name);
  graph.remove_nodes(removed);
  for (const auto& [from, to] : by_name) graph.rename_value(*graph.find_value(from), to);
  return static_cast<int>(fusions.size());
}

}  // namespace pet
