// Bias splitting for the mutant generator.
#include "search/bias_split.h"

#include <algorithm>

#include "core/error.h"

namespace pet::search {
namespace {

// Copies `source`'s nodes into `target`, reading `inputs` for its graph inputs; returns the
// target values of `source`'s outputs.
std::vector<ValueId> inline_graph(Graph& target, const Graph& source, const std::vector<ValueId>& inputs) {
  std::vector<ValueId> mapped(source.values().size(), kNoValue);
  for (size_t i = 0; i < source.inputs().size(); ++i) mapped[static_cast<size_t>(source.inputs()[i])] = inputs.at(i);
  for (size_t v = 0; v < source.values().size(); ++v)
    if (source.values()[v].constant && mapped[v] == kNoValue)
      mapped[v] = target.add_constant(target.unique_value_name(source.values()[v].name), *source.values()[v].constant);
  for (const Node& node : source.nodes()) {
    std::vector<ValueId> node_inputs;
    for (ValueId input : node.inputs) node_inputs.push_back(input == kNoValue ? kNoValue : mapped[static_cast<size_t>(input)]);
    std::vector<ValueId> outputs = target.add_node(node.op(), node.attrs, node_inputs, node.name);
    for (size_t o = 0; o < outputs.size(); ++o) mapped[static_cast<size_t>(node.outputs[o])] = outputs[o];
  }
  std::vector<ValueId> result;
  for (ValueId output : source.outputs()) result.push_back(mapped[static_cast<size_t>(output)]);
  return result;
}

}  // namespace

std::optional<BiasSplit> split_conv_bias(const Graph& program) {
  if (program.nodes().size() != 1 || program.outputs().size() != 1) return std::nullopt;
  const Node& conv = program.nodes().front();
  if (conv.op() != "Conv" || conv.inputs.size() < 3 || conv.inputs[2] == kNoValue) return std::nullopt;
  const auto& inputs = program.inputs();
  auto bias = std::find(inputs.begin(), inputs.end(), conv.inputs[2]);
  if (bias == inputs.end() || std::count(conv.inputs.begin(), conv.inputs.end(), conv.inputs[2]) != 1)
    return std::nullopt;
  BiasSplit split{Graph{}, static_cast<int>(bias - inputs.begin())};
  split.unbiased.name = program.name;
  split.unbiased.opset = program.opset;
  std::vector<ValueId> kept(inputs.size(), kNoValue);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (static_cast<int>(i) != split.bias_input)
      kept[i] = split.unbiased.add_input(program.value(inputs[i]).name, program.value(inputs[i]).type);
  std::vector<ValueId> conv_inputs = {kept[static_cast<size_t>(std::find(inputs.begin(), inputs.end(), conv.inputs[0]) - inputs.begin())],
                                      kept[static_cast<size_t>(std::find(inputs.begin(), inputs.end(), conv.inputs[1]) - inputs.begin())]};
  if (conv_inputs[0] == kNoValue || conv_inputs[1] == kNoValue) return std::nullopt;
  split.unbiased.add_output(split.unbiased.add_node1("Conv", conv.attrs, conv_inputs, conv.name));
  return split;
}

Graph add_bias_back(const Graph& original, const BiasSplit& split, const Graph& unbiased_replacement) {
  Graph result;
  result.name = original.name;
  result.opset = original.opset;
  std::vector<ValueId> inputs, unbiased_inputs;
  for (size_t i = 0; i < original.inputs().size(); ++i) {
    const Value& input = original.value(original.inputs()[i]);
    inputs.push_back(result.add_input(input.name, input.type));
    if (static_cast<int>(i) != split.bias_input) unbiased_inputs.push_back(inputs.back());
  }
  ValueId out = inline_graph(result, unbiased_replacement, unbiased_inputs).at(0);
  const TensorType& type = result.value(out).type;
  std::vector<int64_t> shape(static_cast<size_t>(type.shape.rank()), 1);
  PET_CHECK(shape.size() >= 2, "a conv output has a channel axis");
  shape[1] = type.shape.dims()[1];
  ValueId bias = result.add_node1("Reshape", {{"shape", shape}}, {inputs[static_cast<size_t>(split.bias_input)]}, "bias_shape");
  result.add_output(result.add_node1("Add", {}, {out, bias}, "bias_add"));
  return result;
}

}  // namespace pet::search
