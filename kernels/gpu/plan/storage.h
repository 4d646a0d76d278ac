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

// Each value's name and type, its storage not yet assigned (what assign_storage fills).
std::vector<PlannedValue> planned_values(const Graph& graph);

// The steps and aliases pet-gpu runs a graph not yet finalized as, without running it: group_nodes
// with `known_before_running` and `readers` (graph.consumers()), then assign_storage's Concats and
// Splits in place (the values themselves thrown away). A cost model prices graphs by them.
Grouping planned_steps(const Graph& graph, const std::vector<NodeSupport>& support,
                       const std::vector<bool>& known_before_running, const Consumers& readers);

}  // namespace pet::gpu
