// How a node runs on a GPU, as the roofline needs it: FLOP and byte counts from the op's cost
// facet, the hardware path from its traits, and the GEMM shape of compute-heavy ops.
#pragma once

#include "core/graph.h"
#include "search/cost/roofline.h"

namespace pet::cost {

// Conv-class ops are recognized by their "group" attribute (channels on axis 1), other
// compute-heavy ops are GEMMs over the last two output axes.
Workload describe_workload(const Graph& graph, const Node& node);

}  // namespace pet::cost
