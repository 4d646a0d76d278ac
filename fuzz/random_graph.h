// Small random valid graphs drawn from fuzzer bytes: a few registry ops on tiny tensors, for fuzz_pet_opt.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include "core/graph.h"

namespace pet::fuzz {

// Draws one input (NCHW or a matrix, a few elements) and up to `max_nodes` nodes, each added
// through Graph::add_node so every node passes its op's shape rule; a proposal the shape rule
// refuses is dropped. The graph has at least one node; its outputs are distinct node outputs.
// The same bytes always give the same graph.
Graph random_graph(FuzzedDataProvider& bytes, int max_nodes = 6);

}  // namespace pet::fuzz
