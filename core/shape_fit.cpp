// Shape rules throw for the importer's sake; candidates ask here and get the message as data.
#include "core/shape_fit.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/registry.h"

namespace pet {

ShapeFit fit_shapes(const OpDef& def, const Attributes& attrs, const std::vector<const TensorType*>& inputs,
                    const std::string& node_name) {
  ShapeFit fit;
  try {
    fit.types = infer_types(def, attrs, inputs, node_name);
  } catch (const UserError& error) {
    fit.refusal = error.what();
  }
  return fit;
}

std::optional<std::vector<ValueId>> add_node_if_fits(Graph& graph, const std::string& op, const Attributes& attrs,
                                                     std::vector<ValueId> inputs, const std::string& node_name,
                                                     std::vector<std::string> output_names, std::string& refusal) {
  const OpDef& def = OpRegistry::global().get(op);
  std::vector<const TensorType*> types;
  for (ValueId id : inputs) types.push_back(id == kNoValue ? nullptr : &graph.value(id).type);
  while (!types.empty() && types.back() == nullptr) types.pop_back();  // as add_node drops them
  std::string name = node_name.empty() ? fmt::format("{}_{}", op, graph.nodes().size()) : node_name;
  ShapeFit fit = fit_shapes(def, complete_attributes(def, attrs), types, name);
  if (!fit.fits()) {
    refusal = std::move(fit.refusal);
    return std::nullopt;
  }
  return graph.add_node(op, attrs, std::move(inputs), name, std::move(output_names));
}

}  // namespace pet
