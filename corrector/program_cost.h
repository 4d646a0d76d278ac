// Program cost as the ops' own FLOP and byte counts: the stand-in the corrector reports until
// the cost model lands.
#pragma once

#include "core/graph.h"

namespace pet::corrector {

// The node's cost facet on its input and output types.
Cost node_cost(const Graph& graph, const Node& node);

// Sum over nodes [first, last) of the graph.
Cost nodes_cost(const Graph& graph, size_t first, size_t last);

// Sum over every node.
Cost program_cost(const Graph& graph);

}  // namespace pet::corrector
