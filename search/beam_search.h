// PET's beam search over whole programs: each round expands every program in the beam by one
// move and keeps the best `width` new programs (cost, then hash), until no round improves on the
// best program for `patience` rounds or a budget ends it.
#pragma once

#include <functional>
#include <unordered_set>
#include <vector>

#include "search/program.h"
#include "search/search_budget.h"
#include "search/search_space.h"

namespace pet::search {

// Re-costs the programs a round keeps (a measured target times them end to end); the beam then
// orders them by those costs. Empty: the cost model's predictions order the beam.
using Ranking = std::function<void(std::vector<Program>&)>;

struct BeamOptions {
  int width = 8;
  int patience = 3;  // rounds without a better best program before the search converges
  Ranking rank;
};

struct SearchOutcome {
  Program best;
  std::vector<Program> beam;  // the last beam, best first (a later phase may go on from it)
  std::vector<Program> top;   // the `width` best programs of every round, best first
};

// `seen` holds the hashes of programs already built (shared across phases so none is rebuilt).
SearchOutcome beam_search(std::vector<Program> start, const SearchSpace& space, const MoveKinds& kinds,
                          const BeamOptions& options, const SearchBudget& budget, SearchStats& stats,
                          std::unordered_set<uint64_t>& seen);

}  // namespace pet::search
