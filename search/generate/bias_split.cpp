// Bias splitting for the mutant generator.
#include "search/generate/bias_split.h"

#include <algorithm>

#include "core/error.h"
#include "search/generate/partition.h"

namespace pet::search {
std::optional<BiasSplit> split_conv_bias(const Graph& program) {
  const auto& inputs = program.inputs();
  auto input_index = [&inputs](ValueId value) {
    auto found = std::find(inputs.begin(), inputs.end(), value);
    return found == inputs.end() ? -1 : static_cast<int>(found - inputs.begin());
  };
  auto users = program.consumers();
  std::vector<int> bias_of_output;
  std::vector<bool> is_bias(inputs.size(), false);
  if (program.nodes().empty() || program.outputs().size() != program.nodes().size()) return std::nullopt;
  for (ValueId output : program.outputs()) {
    NodeId producer = program.value(output).producer;
    if (producer < 0) return std::nullopt;
    const Node& conv = program.node(producer);
    if (conv.op() != "Conv" || conv.inputs.size() < 3 || conv.inputs[2] == kNoValue) return std::nullopt;
    int bias = input_index(conv.inputs[2]);
    if (bias < 0 || is_bias[static_cast<size_t>(bias)] || users[static_cast<size_t>(conv.inputs[2])].size() != 1 ||
        input_index(conv.inputs[0]) < 0 || input_index(conv.inputs[1]) < 0)
      return std::nullopt;
    is_bias[static_cast<size_t>(bias)] = true;
    bias_of_output.push_back(bias);
  }
  BiasSplit split{Graph{}, bias_of_output};
  split.unbiased.name = program.name;
  split.unbiased.opset = program.opset;
  std::vector<ValueId> kept(inputs.size(), kNoValue);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!is_bias[i]) kept[i] = split.unbiased.add_input(program.value(inputs[i]).name, program.value(inputs[i]).type);
  for (ValueId output : program.outputs()) {
    const Node& conv = program.node(program.value(output).producer);
    ValueId x = kept[static_cast<size_t>(input_index(conv.inputs[0]))];
    ValueId w = kept[static_cast<size_t>(input_index(conv.inputs[1]))];
    if (x == kNoValue || w == kNoValue) return std::nullopt;  // a bias also read as data
    split.unbiased.add_output(split.unbiased.add_node1("Conv", conv.attrs, {x, w}, conv.name));
  }
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
    if (std::find(split.bias_inputs.begin(), split.bias_inputs.end(), static_cast<int>(i)) == split.bias_inputs.end())
      unbiased_inputs.push_back(inputs.back());
  }
  std::vector<ValueId> outputs = insert_graph(result, unbiased_replacement, unbiased_inputs, "");
  PET_CHECK(outputs.size() == split.bias_inputs.size(), "one bias per output");
  for (size_t o = 0; o < outputs.size(); ++o) {
    const TensorType& type = result.value(outputs[o]).type;
    std::vector<int64_t> shape(static_cast<size_t>(type.shape.rank()), 1);
    PET_CHECK(shape.size() >= 2, "a conv output has a channel axis");
    shape[1] = type.shape.dims()[1];
    ValueId bias = result.add_node1("Reshape", {{"shape", shape}}, {inputs[static_cast<size_t>(split.bias_inputs[o])]},
                                    "bias_shape");
    result.add_output(result.add_node1("Add", {}, {outputs[o], bias}, "bias_add"));
  }
  return result;
}

}  // namespace pet::search
