// Whether a node fits its inputs, as data: a candidate the search builds (a mutant's op, a rule's
// side at a match's shapes) may not fit its operands, which is a reason to drop it, not an error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

// A node's output types, or why the op's shape rule refuses its inputs.
struct ShapeFit {
  std::vector<TensorType> types;  // empty when refused
  std::string refusal;            // the shape rule's message; empty when the node fits
  bool fits() const { return refusal.empty(); }
};

// The op's shape rule (infer_types) on these inputs. Shape rules report a model's bad node with
// a UserError; this is the one place that turns such a refusal into a returned reason.
ShapeFit fit_shapes(const OpDef& def, const Attributes& attrs, const std::vector<const TensorType*>& inputs,
                    const std::string& node_name);

// Graph::add_node when the node fits (its outputs), else nothing is added and the reason is
// returned in `refusal`.
std::optional<std::vector<ValueId>> add_node_if_fits(Graph& graph, const std::string& op, const Attributes& attrs,
                                                     std::vector<ValueId> inputs, const std::string& node_name,
                                                     std::vector<std::string> output_names, std::string& refusal);

}  // namespace pet
