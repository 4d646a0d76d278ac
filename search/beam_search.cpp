// PET's beam search over whole programs.
#include "search/beam_search.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"

namespace pet::search {
namespace {

void keep_best(std::vector<Program>& programs, int width) {
  std::sort(programs.begin(), programs.end(), better);
  if (static_cast<int>(programs.size()) > width) programs.resize(static_cast<size_t>(width));
}

// The best `width` by prediction, then re-costed by the ranking (when there is one) and ordered again.
void keep_ranked(std::vector<Program>& programs, int width, const Ranking& rank) {
  keep_best(programs, width);
  if (!rank) return;
  rank(programs);
  std::sort(programs.begin(), programs.end(), better);
}

}  // namespace

SearchOutcome beam_search(std::vector<Program> start, const SearchSpace& space, const MoveKinds& kinds,
                          const BeamOptions& options, const SearchBudget& budget, SearchStats& stats,
                          std::unordered_set<uint64_t>& seen) {
  PET_CHECK(!start.empty());
  keep_ranked(start, options.width, options.rank);
  SearchOutcome outcome{start.front(), start, start};
  for (const Program& program : start) seen.insert(program.hash);
  auto is_new = [&seen](uint64_t hash) { return seen.insert(hash).second; };
  int rounds_without_gain = 0;
  while (true) {
    std::vector<Program> next;
    std::optional<StopReason> stop;
    for (const Program& program : outcome.beam) {
      if (stop = budget.exhausted(stats.expansions, stats.candidates, stats.work); stop) break;
      ++stats.expansions;
      std::vector<Program> grown = space.expand(program, kinds, stats, is_new, budget);
      next.insert(next.end(), std::make_move_iterator(grown.begin()), std::make_move_iterator(grown.end()));
    }
    if (!stop) stop = budget.spent(stats.candidates, stats.work);
    ++stats.rounds;
    if (next.empty()) {
      stats.stop_reason = stop.value_or(StopReason::converged);
      return outcome;
    }
    // A round cut short by a budget still offers what it built.
    keep_ranked(next, options.width, options.rank);
    outcome.top.insert(outcome.top.end(), next.begin(), next.end());
    keep_best(outcome.top, options.width);
    // Equal-cost rearrangements (hash order only) are not progress: they would never converge.
    bool gained = next.front().cost < outcome.best.cost * (1 - 1e-12);
    if (gained) outcome.best = next.front();
    outcome.beam = std::move(next);
    budget.report(fmt::format("round {}: best {:.1f} us after {} moves, {} expansions, {} candidates", stats.rounds,
                              outcome.best.cost, outcome.best.history.size(), stats.expansions, stats.candidates));
    rounds_without_gain = gained ? 0 : rounds_without_gain + 1;
    if (stop) {
      stats.stop_reason = *stop;
      return outcome;
    }
    if (rounds_without_gain >= options.patience) {
      stats.stop_reason = StopReason::converged;
      return outcome;
    }
  }
}

}  // namespace pet::search
