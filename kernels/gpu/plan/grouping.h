// Groups a graph's nodes into pet-gpu steps: corrections, convolutions
// and matrix products with their epilogues, elementwise ops into single-output kernels, every other
// node alone; view nodes get no step.
#pragma once

#include <vector>

#include "core/graph.h"
#include "kernels/gpu/plan/op_support.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {

struct Grouping {
  std::vector<Step> steps;     // in execution order: by each step's last node
  std::vector<Alias> aliases;  // view nodes whose output is no graph output, ascending
};

// Fuses in this order, each node joining at most one step, and only where every value a step
// keeps inside has all its readers in the step and is no graph output:
//  - a correction (LayoutOverwrite, Overwrite) is a step of its own; the steps that compute its
//    patches (inputs 1..k) and nothing else are marked computes_patch;
//  - a Conv takes a following Add of a per-channel weight (when it has no bias), then an Add of a
//    value of its output's type (the residual), then a Relu, each the only reader of the one before;
//  - a MatMul or Gemm takes a following Add of a per-column weight, then a Relu;
//  - an elementwise node takes the elementwise nodes whose only reader it is, transitively.
// A view node whose output is a graph output becomes a copy step. Steps list their inputs (read
// from outside) and outputs (the last node's); workspace estimates are left to the caller.
Grouping group_nodes(const Graph& graph, const std::vector<NodeSupport>& support);

// The same grouping of a graph not yet finalized, as a cost model asks it: `known_before_running`
// (per value) holds the constants and the values finalize will fold, which count as constants where
// an epilogue asks for a weight; nodes whose role is `outside` get no step and join none. `readers`
// is graph.consumers(), which the caller has already.
Grouping group_nodes(const Graph& graph, const std::vector<NodeSupport>& support,
                     const std::vector<bool>& known_before_running, const Consumers& readers);

}  // namespace pet::gpu
