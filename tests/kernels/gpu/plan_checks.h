// Checks any pet-gpu plan must pass, recomputed from the graph and the plan's steps rather than
// read from the plan's own bookkeeping: shared by the model tests and the property test.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu::testing {

// One line per problem, empty when the plan is sound: every node in exactly one step or alias;
// every value a step reads or writes in memory (not fused), fused values inside one step; views
// inside their base; steps after whatever produces their inputs; graph outputs in the caller's
// buffers; arena offsets aligned, inside the arena, never shared by two values alive at a common
// step (lifetimes recomputed here from the steps, through views); arena <= no-reuse size.
std::vector<std::string> plan_problems(const Graph& graph, const GpuPlan& plan);

}  // namespace pet::gpu::testing
