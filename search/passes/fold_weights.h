// Weight-only constant folding: nodes that read nothing but constants become constants.
#pragma once

#include "core/graph.h"

namespace pet {

// Acts on every node all of whose present inputs are constants (weights or earlier folds), when
// its outputs hold no more elements than max(65536, its inputs' elements), so folding an Expand
// or Tile never bloats the model. The CPU reference executor computes the outputs, which keep
// their names and become constants; the node is removed. Returns how many nodes it folded.
int fold_weights(Graph& graph);

}  // namespace pet
