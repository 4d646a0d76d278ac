// Moves layout transforms below the elementwise ops that follow them, so a conv's bias and
// activation meet the conv (and fuse) and opposite layouts meet each other (and cancel).
#pragma once

#include "core/graph.h"

namespace pet {

// Acts on a layout-only node whose output has one reader, no graph output, when that reader is
// elementwise with an output of the same type and either has no other input, or its other input
// is a scalar constant, or a per-channel constant ([1,C,1,...], possibly a Reshape of a constant)
// while the layout keeps every element in its channel (axis 1 of equal size on both sides,
// checked by pushing channel indices through it). The elementwise op then reads the layout's
// input and the layout reads its result, keeping the elementwise output's name. Returns the
// layouts moved.
int sink_layouts(Graph& graph);

}  // namespace pet
