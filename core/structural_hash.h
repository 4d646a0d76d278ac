// Canonical structural hashes of values and graphs, independent of node order and names.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace pet {

// Hash of the computation producing each value: inputs by position and type, constants by
// content, node outputs by op, attributes and input hashes (commutative inputs sorted).
std::vector<uint64_t> value_hashes(const Graph& graph);

// Hash of the graph's outputs in order plus the sorted hashes of all nodes.
uint64_t structural_hash(const Graph& graph);

uint64_t attributes_hash(const Attributes& attrs);

}  // namespace pet
