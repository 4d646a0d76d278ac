// Bias fusion: the Conv takes the bias as an input where it stands, then the Add's output name.
#include "search/passes/fuse_conv_bias.h"

#include <algorithm>
#include <array>
#include <optional>

#include "core/ops/fused_activation.h"
#include "search/passes/constant_source.h"
#include "verifier/element_domain.h"

namespace pet {
namespace {

// The bias as a constant of shape [C] when `value` is a per-channel constant for `channels`: a
// constant, a reshaped one, or a small value computed from constants (a bias a rule scaled, which
// fold-weights folds later; the search prices programs before it runs).
std::optional<Tensor> per_channel_bias(const Graph& graph, ValueId value, int64_t channels, int rank) {
  const Value& bias = graph.value(value);
  if (bias.type.shape.numel() != channels) return std::nullopt;
  std::optional<Tensor> derived;
  const Tensor* source = constant_source(graph, value);
  if (!source && (derived = small_derived_constant(graph, value))) source = &*derived;
  if (!source || source->type().dtype != DType::f32 || source->type().shape.numel() != channels) return std::nullopt;
  const std::vector<int64_t>& dims = bias.type.shape.dims();
  if (static_cast<int>(dims.size()) > rank || dims.size() < 2) return std::nullopt;
  // Broadcast from the right: the channel axis is rank-2-... ; [1,C,1,1] or [C,1,1].
  size_t channel_axis = dims.size() - static_cast<size_t>(rank - 1);
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != (d == channel_axis ? channels : 1)) return std::nullopt;
  return source->reshaped(Shape{channels});
}

struct BiasFusion {
  NodeId conv, add;
  Tensor bias;
};

std::optional<BiasFusion> find_one(const Graph& graph, const Consumers& users, NodeId n) {
  const Node& add = graph.node(n);
  if (add.op() != "Add" || add.inputs.size() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    ValueId produced = add.inputs[static_cast<size_t>(side)];
    NodeId producer = graph.value(produced).producer;
    if (producer < 0) continue;
    const Node& conv = graph.node(producer);
    bool bias_free = conv.op() == "Conv" && (conv.inputs.size() < 3 || conv.inputs[2] == kNoValue);
    if (!bias_free || ops::fused_activation(conv.attrs) != "none") continue;
    if (users[static_cast<size_t>(produced)].size() != 1 || graph.is_output(produced)) continue;
    const TensorType& out = graph.value(produced).type;
    if (graph.value(add.outputs[0]).type != out || !may_rewrite(graph, std::array<NodeId, 2>{producer, n})) continue;
    auto bias = per_channel_bias(graph, add.inputs[static_cast<size_t>(1 - side)], out.shape.dims()[1], out.shape.rank());
    if (bias) return BiasFusion{producer, n, *bias};
  }
  return std::nullopt;
}

// The per-piece biases behind a channel Split of a bias-free conv, joined into one [C] bias, when
// every piece is read by one Add of a per-channel constant (the bias-split form of merged convs).
struct SplitBiasFusion {
  NodeId conv, split;
  std::vector<NodeId> adds;
  Tensor bias;
};

std::optional<SplitBiasFusion> find_split_bias(const Graph& graph, const Consumers& users,
                                                NodeId n) {
  const Node& split = graph.node(n);
  if (split.op() != "Split" || split.attrs.get_int("axis") != 1) return std::nullopt;
  ValueId produced = split.inputs[0];
  NodeId producer = graph.value(produced).producer;
  if (producer < 0 || users[static_cast<size_t>(produced)].size() != 1 || graph.is_output(produced))
    return std::nullopt;
  const Node& conv = graph.node(producer);
  bool bias_free = conv.op() == "Conv" && (conv.inputs.size() < 3 || conv.inputs[2] == kNoValue);
  if (!bias_free || ops::fused_activation(conv.attrs) != "none") return std::nullopt;
  SplitBiasFusion fusion{producer, n, {}, Tensor(DType::f32, Shape{graph.value(produced).type.shape.dims()[1]})};
  int64_t offset = 0;
  for (ValueId piece : split.outputs) {
    if (users[static_cast<size_t>(piece)].size() != 1 || graph.is_output(piece)) return std::nullopt;
    const Node& add = graph.node(users[static_cast<size_t>(piece)][0]);
    if (add.op() != "Add" || add.inputs.size() != 2 || graph.value(add.outputs[0]).type != graph.value(piece).type)
      return std::nullopt;
    ValueId other = add.inputs[0] == piece ? add.inputs[1] : add.inputs[0];
    const TensorType& type = graph.value(piece).type;
    auto bias = per_channel_bias(graph, other, type.shape.dims()[1], type.shape.rank());
    if (!bias || other == piece) return std::nullopt;
    std::copy(bias->f32().begin(), bias->f32().end(), fusion.bias.mutable_f32().begin() + offset);
    offset += type.shape.dims()[1];
    fusion.adds.push_back(users[static_cast<size_t>(piece)][0]);
  }
  std::vector<NodeId> nodes = fusion.adds;
  nodes.insert(nodes.end(), {fusion.conv, fusion.split});
  if (!may_rewrite(graph, nodes)) return std::nullopt;
  return fusion;
}

// Every split-bias fusion; no two share a node (each conv has one Split reader, each piece one Add).
std::vector<SplitBiasFusion> all_split_biases(const Graph& graph) {
  auto users = graph.consumers();
  std::vector<SplitBiasFusion> fusions;
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()); ++n)
    if (std::optional<SplitBiasFusion> fusion = find_split_bias(graph, users, n)) fusions.push_back(std::move(*fusion));
  return fusions;
}

// Rebuilds each conv (with the joined bias) and split, and gives the split's outputs the Adds' names.
int fuse_split_biases(Graph& graph) {
  std::vector<SplitBiasFusion> fusions = all_split_biases(graph);
  if (fusions.empty()) return 0;
  std::vector<NodeId> removed;
  std::vector<std::pair<std::string, std::string>> renames;
  std::vector<std::pair<ValueId, ValueId>> replacements;  // (Add's output, split piece): once, after the loop
  for (SplitBiasFusion& fusion : fusions) {
    Node conv = graph.node(fusion.conv), split = graph.node(fusion.split);
    ValueId bias = graph.add_constant(graph.unique_value_name(conv.name + "_bias"), std::move(fusion.bias));
    ValueId fused = graph.add_node1(conv.op(), conv.attrs, {conv.inputs[0], conv.inputs[1], bias}, conv.name);
    std::vector<ValueId> pieces = graph.add_node(split.op(), split.attrs, {fused}, split.name);
    for (size_t i = 0; i < pieces.size(); ++i) {
      ValueId added = graph.node(fusion.adds[i]).outputs[0];
      replacements.emplace_back(added, pieces[i]);
      renames.emplace_back(graph.value(pieces[i]).name, graph.value(added).name);
    }
    removed.push_back(fusion.conv);
    removed.push_back(fusion.split);
    removed.insert(removed.end(), fusion.adds.begin(), fusion.adds.end());
  }
  graph.replace_uses(replacements);
  graph.remove_nodes(removed);
  for (const auto& [piece_name, added_name] : renames) graph.rename_value(*graph.find_value(piece_name), added_name);
  graph.sort_topologically();
  return static_cast<int>(fusions.size());
}

int fuse_single_biases(Graph& graph) {
  auto users = graph.consumers();
  std::vector<BiasFusion> fusions;
  std::vector<bool> taken(graph.nodes().size(), false);
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()); ++n)
    if (auto found = find_one(graph, users, n); found && !taken[static_cast<size_t>(found->conv)]) {
      taken[static_cast<size_t>(found->conv)] = true;
      fusions.push_back(std::move(*found));
    }
  if (fusions.empty()) return 0;
  // In place: each conv takes its bias as a third input where it stands, the Add's readers read the
  // conv's output, which takes the Add's output name once the Adds are gone. A conv comes before its
  // Add, so the order stays topological and nothing is re-sorted.
  std::vector<NodeId> removed;
  std::vector<std::pair<ValueId, ValueId>> replacements;  // (Add's output, conv's): once, after the loop
  std::vector<std::pair<std::string, std::string>> renames;
  for (BiasFusion& fusion : fusions) {
    const Node& conv = graph.node(fusion.conv);
    ValueId bias = graph.add_constant(graph.unique_value_name(conv.name + "_bias"), std::move(fusion.bias));
    graph.set_node_inputs(fusion.conv, {conv.inputs[0], conv.inputs[1], bias});
    ValueId fused = graph.node(fusion.conv).outputs[0], added = graph.node(fusion.add).outputs[0];
    replacements.emplace_back(added, fused);
    renames.emplace_back(graph.value(fused).name, graph.value(added).name);
    removed.push_back(fusion.add);
  }
  graph.replace_uses(replacements);
  graph.remove_nodes(removed);
  for (const auto& [fused_name, added_name] : renames) graph.rename_value(*graph.find_value(fused_name), added_name);
  return static_cast<int>(fusions.size());
}

}  // namespace

int fuse_conv_bias(Graph& graph) { return fuse_single_biases(graph) + fuse_split_biases(graph); }

}  // namespace pet
