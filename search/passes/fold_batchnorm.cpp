// W' = W * s, b' = (b - mean) * s + beta with s = gamma / sqrt(var + epsilon), per channel.
#include "search/passes/fold_batchnorm.h"

#include <array>
#include <cmath>

#include "core/ops/fused_activation.h"
#include "verifier/element_domain.h"

namespace pet {
namespace {

struct FoldCandidate {
  NodeId conv;
  NodeId batchnorm;
};

bool all_constant(const Graph& graph, const Node& node, size_t first) {
  for (size_t i = first; i < node.inputs.size(); ++i)
    if (!graph.is_constant(node.inputs[i])) return false;
  return true;
}

std::vector<FoldCandidate> find_candidates(const Graph& graph) {
  auto users = graph.consumers();
  std::vector<FoldCandidate> found;
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes().size()); ++n) {
    const Node& bn = graph.node(n);
    if (bn.op() != "BatchNormalization" || bn.inputs.size() != 5 || !all_constant(graph, bn, 1)) continue;
    NodeId producer = graph.value(bn.inputs[0]).producer;
    if (producer < 0) continue;
    const Node& conv = graph.node(producer);
    bool conv_feeds_only_bn = users[static_cast<size_t>(conv.outputs[0])].size() == 1;
    bool conv_output_is_graph_output = false;
    for (ValueId out : graph.outputs()) conv_output_is_graph_output |= out == conv.outputs[0];
    bool conv_is_affine = ops::fused_activation(conv.attrs) == "none";  // BN cannot fold through a Relu
    if (conv.op() != "Conv" || !conv_is_affine || !conv_feeds_only_bn || conv_output_is_graph_output ||
        !all_constant(graph, conv, 1) || !may_rewrite(graph, std::array<NodeId, 2>{producer, n}))
      continue;
    found.push_back({producer, n});
  }
  return found;
}

// The folded weight and bias of one Conv + BN pair.
std::pair<Tensor, Tensor> folded_parameters(const Graph& graph, const Node& conv, const Node& bn) {
  const Tensor& weight = *graph.value(conv.inputs[1]).constant;
  int64_t channels = weight.shape()[0];
  int64_t per_channel = channels > 0 ? weight.numel() / channels : 0;  // a conv may have no output channels
  auto param = [&](int index) { return graph.value(bn.inputs[static_cast<size_t>(index)]).constant->f32(); };
  auto gamma = param(1), beta = param(2), mean = param(3), var = param(4);
  auto epsilon = static_cast<float>(bn.attrs.get_float("epsilon"));
  Tensor new_weight(weight.type());
  Tensor new_bias(DType::f32, Shape{channels});
  auto w = weight.f32();
  auto w2 = new_weight.mutable_f32();
  auto b2 = new_bias.mutable_f32();
  for (int64_t c = 0; c < channels; ++c) {
    auto ch = static_cast<size_t>(c);
    float scale = gamma[ch] / std::sqrt(var[ch] + epsilon);
    for (int64_t i = 0; i < per_channel; ++i) w2[static_cast<size_t>(c * per_channel + i)] = w[static_cast<size_t>(c * per_channel + i)] * scale;
    float bias = conv.inputs.size() > 2 ? graph.value(conv.inputs[2]).constant->f32()[ch] : 0.0f;
    b2[ch] = (bias - mean[ch]) * scale + beta[ch];
  }
  return {new_weight, new_bias};
}

}  // namespace

int fold_batchnorm(Graph& graph) {
  std::vector<FoldCandidate> candidates = find_candidates(graph);
  std::vector<NodeId> removed;
  // (folded conv output, BN output name): the folded value takes over the BN output's name so
  // readers and graph outputs see the same names as before.
  std::vector<std::pair<std::string, std::string>> renames;
  for (const FoldCandidate& candidate : candidates) {
    auto [weight, bias] = folded_parameters(graph, graph.node(candidate.conv), graph.node(candidate.batchnorm));
    const Node& conv = graph.node(candidate.conv);
    std::string conv_name = conv.name;
    ValueId input = conv.inputs[0];
    Attributes attrs = conv.attrs;
    ValueId new_weight = graph.add_constant(graph.value(conv.inputs[1]).name + "_bnfold", std::move(weight));
    ValueId new_bias = graph.add_constant(conv_name + "_bias_bnfold", std::move(bias));
    ValueId folded = graph.add_node1("Conv", attrs, {input, new_weight, new_bias}, conv_name + "_bnfold");
    ValueId bn_out = graph.node(candidate.batchnorm).outputs[0];
    graph.replace_uses(bn_out, folded);
    renames.emplace_back(graph.value(folded).name, graph.value(bn_out).name);
    removed.push_back(candidate.conv);
    removed.push_back(candidate.batchnorm);
  }
  if (candidates.empty()) return 0;
  graph.remove_nodes(removed);
  for (const auto& [folded_name, bn_name] : renames) graph.rename_value(*graph.find_value(folded_name), bn_name);
  graph.sort_topologically();
  return static_cast<int>(candidates.size());
}

}  // namespace pet
