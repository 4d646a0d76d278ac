// Graph-to-Z3 translation with sorts and function symbols cached by their printed signature.
#include "verifier/z3/z3_encoding.h"

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

z3::sort Z3Encoding::sort_of(const TensorType& type) {
  std::string name = type.to_string();
  auto found = sorts_.find(name);
  if (found == sorts_.end()) found = sorts_.emplace(name, context_.uninterpreted_sort(name.c_str())).first;
  return found->second;
}

z3::expr Z3Encoding::input_term(const std::string& name, const TensorType& type) {
  return context_.constant(("input %" + name).c_str(), sort_of(type));
}

z3::expr Z3Encoding::constant_term(const Tensor& value) {
  std::string name = fmt::format("const {} #{:016x}", value.type().to_string(), value.content_hash());
  return context_.constant(name.c_str(), sort_of(value.type()));
}

z3::func_decl Z3Encoding::function_of(const axioms::NodeSignature& signature, size_t output) {
  std::string key = axioms::signature_key(signature) + "#" + std::to_string(output);
  auto found = functions_.find(key);
  if (found != functions_.end()) return found->second;
  z3::sort_vector domain(context_);
  for (const TensorType& type : signature.inputs) domain.push_back(sort_of(type));
  z3::func_decl function = context_.function(key.c_str(), domain, sort_of(signature.outputs.at(output)));
  return functions_.emplace(key, function).first->second;
}

std::vector<z3::expr> Z3Encoding::translate_values(const Graph& graph, const std::vector<z3::expr>& inputs) {
  PET_CHECK(inputs.size() == graph.inputs().size(), "one term per graph input");
  std::vector<z3::expr> terms(graph.values().size(), context_.bool_val(false));
  std::vector<bool> known(graph.values().size(), false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto id = static_cast<size_t>(graph.inputs()[i]);
    terms[id] = inputs[i];
    known[id] = true;
  }
  for (size_t id = 0; id < graph.values().size(); ++id)
    if (graph.values()[id].constant) {
      terms[id] = constant_term(*graph.values()[id].constant);
      known[id] = true;
    }
  for (const Node& node : graph.nodes()) {
    z3::expr_vector arguments(context_);
    for (ValueId input : node.inputs)
      if (input != kNoValue) {
        PET_CHECK(known[static_cast<size_t>(input)], "node '" + node.name + "' reads a value before it is defined");
        arguments.push_back(terms[static_cast<size_t>(input)]);
      }
    axioms::NodeSignature signature = axioms::signature_of(graph, node);
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      auto id = static_cast<size_t>(node.outputs[k]);
      terms[id] = function_of(signature, k)(arguments);
      known[id] = true;
    }
    if (auto activation = axioms::activation_signature_of(graph, node)) {
      auto id = static_cast<size_t>(node.outputs[0]);
      terms[id] = function_of(*activation, 0)(terms[id]);
    }
  }
  return terms;
}

std::vector<z3::expr> Z3Encoding::translate(const Graph& graph, const std::vector<z3::expr>& inputs) {
  std::vector<z3::expr> values = translate_values(graph, inputs);
  std::vector<z3::expr> outputs;
  for (ValueId output : graph.outputs()) outputs.push_back(values.at(static_cast<size_t>(output)));
  return outputs;
}

}  // namespace pet
