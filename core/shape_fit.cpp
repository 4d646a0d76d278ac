// A candidate node is added only when its op's shape rule accepts the operands it is given.
#include "core/shape_fit.h"

#include <fmt/format.h>

#include "core/registry.h"

namespace pet {

std::optional<std::vector<ValueId>> add_node_if_fits(Graph& graph, const std::string& op, const Attributes& attrs,
                                                     std::vector<ValueId> inputs, const std::string& node_name,
                                                     std::vector<std::string> output_names, std::string& refusal) {
  const OpDef& def = OpRegistry::global().get(op);
  std::vector<const TensorType*> types;
  for (ValueId id : inputs) types.push_back(id == kNoValue ? nullptr : &graph.value(id).type);
  while (!types.empty() && types.back() == nullptr) types.pop_back();  // as add_node drops them
  std::string name = node_name.empty() ? fmt::format("{}_{}", op, graph.nodes().size()) : node_name;
  ShapeResult fit = infer_types(def, complete_attributes(def, attrs), types, name);
  if (fit.refused()) {
    refusal = std::move(fit).refusal().message;
    return std::nullopt;
  }
  return graph.add_node(op, attrs, std::move(inputs), name, std::move(output_names));
}

}  // namespace pet
