// TASO's α-relaxed best-first search: always expand the cheapest unexpanded program, and keep
// any new program costing less than α × the best found so far (so cost may rise for a while),
// until the queue empties or a budget ends it. Returns the `keep` cheapest programs it saw, best
// first (a measured target times several of them end to end).
#pragma once

#include <unordered_set>
#include <vector>

#include "search/program.h"
#include "search/search_budget.h"
#include "search/search_space.h"

namespace pet::search {

struct AlphaOptions {
  double alpha = 1.05;
  size_t keep = 1;  // programs returned
};

std::vector<Program> alpha_search(Program start, const SearchSpace& space, const MoveKinds& kinds, const AlphaOptions& options,
                     const SearchBudget& budget, SearchStats& stats, std::unordered_set<uint64_t>& seen);

}  // namespace pet::search
