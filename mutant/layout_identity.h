// Finds transforms that only recompute a value the candidate already has (layout chains that
// cancel, a split concatenated back...) by evaluating them over Z_p, so the generator prunes
// what it discovers itself rather than what a hand list names.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace pet::mutant {

// True when the last node is layout-only and one of its outputs equals another value of the
// same type at sampled positions, on seeded random inputs over Z_p (all corners plus random
// interior points; a transform that is not the identity disagrees at almost every point).
// The outputs of compute ops count as inputs of their own (their elements pseudo-random, never
// computed): transforms are compared as rearrangements of what the compute ops produced, at the
// price of a few index computations instead of whole receptive fields. Two compute ops that
// happen to compute the same value are thereby not recognized; the examiner still judges them.
// Adds the elements it read to `work` (the generator's deterministic budget).
bool recomputes_existing_value(const Graph& graph, uint64_t seed, int64_t& work);

}  // namespace pet::mutant
