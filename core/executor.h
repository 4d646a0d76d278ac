// The CPU reference executor: runs any graph node by node with each op's reference kernel.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

// Runs the graph on values for its inputs (in graph-input order) and returns its outputs.
// A UserError names the input whose type does not match.
std::vector<Tensor> execute(const Graph& graph, const std::vector<Tensor>& inputs);

// The same, with inputs by name; missing or unknown names are UserErrors.
std::vector<Tensor> execute_named(const Graph& graph, const std::map<std::string, Tensor>& inputs);

// Runs one node's kernel on concrete inputs (constant folding uses this).
std::vector<Tensor> execute_node(const Node& node, const std::vector<const Tensor*>& inputs,
                                 const std::vector<TensorType>& output_types);

// Seeded random inputs for every graph input: floats uniform in [-1, 1), integers in [0, 2)
// (valid indices for any non-empty axis), booleans fair coins. Input i uses seed + i.
std::vector<Tensor> random_inputs(const Graph& graph, uint64_t seed);

}  // namespace pet
