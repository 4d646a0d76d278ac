// Gives every value its storage: weights with their preparations, the caller's inputs and outputs,
// views (view nodes, Concats written in place, Splits as pieces of their input), fused values, and
// arena values (whose offsets arena.h chooses).
#pragma once

#include <vector>

#include "core/graph.h"
#include "kernels/gpu/plan/grouping.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {

// Fills `values` (by ValueId, names and types set) and turns Concat and Split steps into aliases
// where their bytes can be shared, deciding in node order:
//  - a Concat along its outermost non-unit axis (every dimension before the axis is 1) whose
//    inputs are distinct arena values (written by steps, no graph outputs, no views yet) becomes
//    `concat_in_place`: each input is a view of its slice of the output;
//  - a Split along its input's outermost non-unit axis whose outputs are no graph outputs becomes
//    `split_views`: each output is a view of its piece of the input.
// Weights get one preparation per distinct use by the final steps.
void assign_storage(const Graph& graph, Grouping& grouping, std::vector<PlannedValue>& values);

}  // namespace pet::gpu
