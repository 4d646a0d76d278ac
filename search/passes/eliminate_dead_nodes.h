// Removes nodes none of whose outputs reach a graph output.
#pragma once

#include "core/graph.h"

namespace pet {

// Acts on every node whose outputs are neither graph outputs nor read by a live node.
// Returns how many nodes it removed.
int eliminate_dead_nodes(Graph& graph);

}  // namespace pet
