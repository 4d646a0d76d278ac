// fuse_corrections: folds each correction's Overwrite into the Layout that produces the
// mutant's output, so a corrected program writes that output in one LayoutOverwrite node.
#pragma once

#include "core/graph.h"

namespace pet::corrector {

// Rewrites every chain `Overwrite(...Overwrite(Layout(m), p1)..., pk)` (k >= 1), where each
// intermediate value feeds only the next Overwrite's base and is no graph output, into one
// `LayoutOverwrite(m, p1, ..., pk)` that keeps the chain's output value name. Acts on nothing
// else: an activation after the chain stays its own node. Returns the number of chains fused.
int fuse_corrections(Graph& graph);

}  // namespace pet::corrector
