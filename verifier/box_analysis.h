// Summation boxes of every value of a multi-linear graph, propagated from its inputs.
#pragma once

#include <vector>

#include "core/box_grid.h"
#include "core/graph.h"

namespace pet {

// Inputs and constants are single boxes; each node's outputs come from its op's box rule.
// Internal check when an op has no box rule (examine() refuses such graphs before).
std::vector<BoxGrid> analyze_boxes(const Graph& graph);

}  // namespace pet
