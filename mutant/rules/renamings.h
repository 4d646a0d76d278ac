// Type-preserving maps of a shape class's input pool: permutations (renamings) and arbitrary
// maps (which may identify inputs), used to canonicalize and prune candidate pairs.
#pragma once

#include <cstdint>
#include <vector>

#include "mutant/rules/program.h"

namespace pet::rules {

// Every map i -> m[i] with m[i] of the same type as i; `permutations_only` keeps the bijections.
std::vector<std::vector<int>> pool_maps(const ShapeClass& shape_class, bool permutations_only);

// Key of an unordered pair of programs under a renaming (identified inputs merge equal steps).
uint64_t pair_key(const Program& a, const Program& b, const std::vector<int>& rename);

// The smallest pair_key over `permutations`, applied after `map` (map first, then rename).
uint64_t canonical_pair_key(const Program& a, const Program& b, const std::vector<int>& map,
                            const std::vector<std::vector<int>>& permutations);

}  // namespace pet::rules
