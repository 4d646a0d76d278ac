// Node signatures and their index, keyed by the canonical printed form.
#include "verifier/axioms/signature_index.h"

#include "core/ops/fused_activation.h"
#include "core/registry.h"

namespace pet::axioms {

std::string signature_key(const NodeSignature& signature) {
  std::string key = signature.op + "[";
  bool first = true;
  for (const auto& [name, value] : signature.attrs.entries()) {
    key += (first ? "" : ",") + name + "=" + attr_value_to_string(value);
    first = false;
  }
  key += "](";
  size_t next = 0;
  for (size_t i = 0; i < signature.present.size(); ++i) {
    if (i) key += ",";
    key += signature.present[i] ? signature.inputs.at(next++).to_string() : "_";
  }
  return key + ")";
}

NodeSignature signature_of(const Graph& graph, const Node& node) {
  NodeSignature signature{node.op(), ops::without_activation(node.attrs), {}, {}, {}};
  for (ValueId input : node.inputs) {
    signature.present.push_back(input != kNoValue);
    if (input != kNoValue) signature.inputs.push_back(graph.value(input).type);
  }
  for (ValueId output : node.outputs) signature.outputs.push_back(graph.value(output).type);
  return signature;
}

std::optional<NodeSignature> activation_signature_of(const Graph& graph, const Node& node) {
  std::optional<std::string> op = ops::activation_op(node.attrs);
  if (!op) return std::nullopt;
  const TensorType& type = graph.value(node.outputs.at(0)).type;
  return NodeSignature{*op, complete_attributes(OpRegistry::global().get(*op), {}), {type}, {type}, {true}};
}

int SignatureIndex::add_graph(const Graph& graph) {
  int added = 0;
  auto add = [&](NodeSignature signature) {
    if (!keys_.insert(signature_key(signature)).second) return;
    by_op_[signature.op].push_back(std::move(signature));
    ++added;
  };
  for (const Node& node : graph.nodes()) {
    add(signature_of(graph, node));
    if (auto activation = activation_signature_of(graph, node)) add(std::move(*activation));
  }
  return added;
}

const std::vector<NodeSignature>& SignatureIndex::of(const std::string& op) const {
  static const std::vector<NodeSignature> kNone;
  auto found = by_op_.find(op);
  return found == by_op_.end() ? kNone : found->second;
}

}  // namespace pet::axioms
