// Layout sinking below corrections: a corrected mutant's output stays in the mutant's layout, so
// the next mutant of a stage reads it there and the layouts between the two cancel.
#pragma once

#include "core/graph.h"

namespace pet {

// Acts on a LayoutOverwrite node `r = LayoutOverwrite[L](m, p1..pk)` (the corrector's fused
// `Overwrite(L(m), p...)`, L not the identity), r no graph output, when
//  - each patch's box, taken back through L, is a box of m's layout holding the same elements in
//    the same order, or is cut along one axis into up to 8 pieces that each are (a seam box
//    straddling two images that a spatial split sends to different batch entries), and
//  - every reader of r either undoes L (a Layout that maps r back to m's layout: the next conv of
//    a stage entering the same layout) or is a Slice with unit steps whose box, taken back
//    through L, is again such a box or such pieces (the next correction reading its input).
// It writes the patches in m's layout, `o = LayoutOverwrite[identity](m, p1'..pk')` (each piece
// sliced from its patch and reshaped to its box there when the shapes differ), and `r = L(o)`
// keeps r's name; the Slices read o instead (their pieces joined by a Concat). A fused Relu moves
// onto m and the patches (relu of an overwrite is the overwrite of the relus), where the
// activation fusion then takes it into their producers. A rewrite whose patches the node's
// lowering would refuse in m's layout is not made.
// A plain `r = Layout[L](m)` (a fully equivalent mutant's exit) whose readers are the same kinds,
// at least one a Slice, stays, and its Slices read m instead.
// Either way the layout chain elimination then cancels L against the readers that undo it.
// Returns the nodes rewritten.
int sink_layouts_below_corrections(Graph& graph);

}  // namespace pet
