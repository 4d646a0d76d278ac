// Whether a node fits its inputs, as data: a candidate the search builds (a mutant's op, a rule's
// side at a match's shapes) may not fit its operands, which is a reason to drop it, not an error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

// Graph::add_node when the node fits (its outputs), else nothing is added and the shape rule's
// refusal (infer_types) is returned in `refusal`.
std::optional<std::vector<ValueId>> add_node_if_fits(Graph& graph, const std::string& op, const Attributes& attrs,
                                                     std::vector<ValueId> inputs, const std::string& node_name,
                                                     std::vector<std::string> output_names, std::string& refusal);

}  // namespace pet
