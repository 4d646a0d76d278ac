// Finds layout chains that compute the identity by running them on an index tensor, so the
// generator prunes cancelling transforms it discovers itself rather than from a hand list.
#pragma once

#include "core/graph.h"

namespace pet::mutant {

// True when `node` is a single-input, single-output layout-only op that, alone or together with
// the layout-only op producing its input, maps every element back to where it was.
bool cancels(const Graph& graph, const Node& node);

// True when the last node is layout-only and one of its outputs, computed from the graph inputs
// through layout-only ops (split, concat, transpose...), holds one graph input's elements in
// their original places: the transforms cancel, whatever mix of ops they are.
bool reproduces_an_input(const Graph& graph);

}  // namespace pet::mutant
