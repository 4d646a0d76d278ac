// fuse_corrections: folds each correction's Overwrite into the Layout that produces the
// mutant's output, and a following Relu into the result, so a corrected program writes that
// output in one LayoutOverwrite node with one reference kernel.
#pragma once

#include "core/graph.h"

namespace pet::corrector {

// Rewrites every chain `Overwrite(...Overwrite(Layout(m), p1)..., pk)` (k >= 1), where each
// intermediate value feeds only the next Overwrite's base and is no graph output, into one
// `LayoutOverwrite(m, p1, ..., pk)` that keeps the chain's output value name. When the chain's
// output is no graph output and its only reader is a Relu (an op core/ops/fused_activation.h can
// fuse), the Relu joins too: `LayoutOverwrite[activation="relu"]` keeps the Relu's output name.
// Returns the number of chains fused.
int fuse_corrections(Graph& graph);

}  // namespace pet::corrector
