// Op signatures: what a profile DB entry is keyed by, printed the way the textual IR prints nodes.
#include <fmt/format.h>

#include "search/cost/cost_model.h"

namespace pet::cost {

std::string OpSignature::key() const {
  std::vector<std::string> inputs;
  for (const std::string& type : input_types) inputs.push_back(type.empty() ? "_" : type);
  return fmt::format("{}{}({}) {}", op, attributes, fmt::join(inputs, ", "), dtype);
}

OpSignature signature_of(const Graph& graph, const Node& node) {
  OpSignature signature;
  signature.op = node.op();
  signature.attributes = node.attrs.to_string();
  for (ValueId input : node.inputs)
    signature.input_types.push_back(input == kNoValue ? "" : graph.value(input).type.to_string());
  signature.dtype = node.outputs.empty() ? "" : std::string(dtype_name(graph.value(node.outputs[0]).type.dtype));
  return signature;
}

}  // namespace pet::cost
