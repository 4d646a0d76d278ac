// Common-subexpression elimination: equal computations on equal inputs run once.
#pragma once

#include "core/graph.h"

namespace pet {

// Acts on a node when an earlier node has the same op, equal canonical attributes and the same
// inputs (the same values, or constants of equal type and bytes; inputs 0 and 1 in either order
// for a commutative op). Readers of the later node's outputs read the earlier node's instead; a
// later output that is a graph output keeps its name by renaming the earlier output, and the pair
// is left alone when that is impossible. Returns how many nodes it removed.
int eliminate_common_subexpressions(Graph& graph);

}  // namespace pet
