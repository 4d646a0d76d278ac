// The bias-free view: biased convs split into Conv + per-channel Add, and the way back.
#include "search/rules/bias_free_view.h"

#include <algorithm>

#include "core/ops/fused_activation.h"
#include "search/passes/eliminate_dead_nodes.h"
#include "search/passes/fuse_conv_bias.h"

namespace pet::search {
namespace {

// Whether the view splits this node: a Conv whose bias is an f32 constant and that applies no
// activation after the bias (the activation would then come before the Add).
bool splits(const Graph& graph, const Node& node) {
  if (node.op() != "Conv" || node.inputs.size() < 3 || node.inputs[2] == kNoValue) return false;
  if (!graph.is_constant(node.inputs[2]) || graph.value(node.inputs[2]).type.dtype != DType::f32) return false;
  return ops::fused_activation(node.attrs) == "none";
}

// The bias [C] as a constant that broadcasts over the conv's output: [1,C,1,...].
Tensor channel_bias(const Tensor& bias, const TensorType& output) {
  std::vector<int64_t> dims(static_cast<size_t>(output.shape.rank()), 1);
  dims[1] = output.shape.dims()[1];
  return bias.reshaped(Shape(dims));
}

}  // namespace

std::optional<Graph> bias_free_view(const Graph& graph) {
  if (std::none_of(graph.nodes().begin(), graph.nodes().end(), [&](const Node& node) { return splits(graph, node); }))
    return std::nullopt;
  Graph view;
  view.name = graph.name;
  view.opset = graph.opset;
  view.float16_values = graph.float16_values;
  view.float16_weights = graph.float16_weights;
  std::vector<ValueId> mapped(graph.values().size(), kNoValue);
  for (ValueId input : graph.inputs())
    mapped[static_cast<size_t>(input)] = view.add_input(graph.value(input).name, graph.value(input).type);
  for (size_t v = 0; v < graph.values().size(); ++v)
    if (graph.values()[v].constant) mapped[v] = view.add_constant(graph.values()[v].name, *graph.values()[v].constant);
  for (const Node& node : graph.nodes()) {
    std::vector<ValueId> inputs;
    for (ValueId in : node.inputs) inputs.push_back(in == kNoValue ? kNoValue : mapped[static_cast<size_t>(in)]);
    std::vector<std::string> names;
    for (ValueId out : node.outputs) names.push_back(graph.value(out).name);
    if (!splits(graph, node)) {
      std::vector<ValueId> outs = view.add_node(node.op(), node.attrs, inputs, node.name, names);
      for (size_t i = 0; i < outs.size(); ++i) mapped[static_cast<size_t>(node.outputs[i])] = outs[i];
      continue;
    }
    const Value& bias = graph.value(node.inputs[2]);
    ValueId conv = view.add_node(node.op(), node.attrs, {inputs[0], inputs[1]}, node.name,
                                 {view.unique_value_name(names[0] + "/unbiased")}).at(0);
    ValueId channel = view.add_constant(view.unique_value_name(bias.name + "/channel"),
                                        channel_bias(*bias.constant, graph.value(node.outputs[0]).type));
    mapped[static_cast<size_t>(node.outputs[0])] =
        view.add_node("Add", {}, {conv, channel}, node.name + "/bias", {names[0]}).at(0);
  }
  std::vector<ValueId> outputs;
  for (ValueId out : graph.outputs()) outputs.push_back(mapped[static_cast<size_t>(out)]);
  view.set_outputs(outputs);
  return view;
}

int restore_conv_biases(Graph& graph) {
  int fused = fuse_conv_bias(graph);
  if (fused > 0) eliminate_dead_nodes(graph);  // what computed a fused bias from constants
  return fused;
}

}  // namespace pet::search
