// TASO's α-relaxed best-first search.
#include "search/alpha_search.h"

#include <set>

#include <fmt/format.h>

namespace pet::search {
namespace {

struct Cheaper {
  bool operator()(const Program& a, const Program& b) const { return better(a, b); }
};

}  // namespace

Program alpha_search(Program start, const SearchSpace& space, const MoveKinds& kinds, const AlphaOptions& options,
                     const SearchBudget& budget, SearchStats& stats, std::unordered_set<uint64_t>& seen) {
  seen.insert(start.hash);
  Program best = start;
  std::set<Program, Cheaper> queue;  // ordered by (cost, hash): deterministic
  queue.insert(std::move(start));
  auto is_new = [&seen](uint64_t hash) { return seen.insert(hash).second; };
  while (!queue.empty()) {
    if (std::optional<StopReason> reason = budget.exhausted(stats.expansions, stats.candidates)) {
      stats.stop_reason = *reason;
      return best;
    }
    Program program = std::move(queue.extract(queue.begin()).value());
    if (program.cost > options.alpha * best.cost) continue;  // kept when best was worse; now out of reach
    ++stats.expansions;
    for (Program& next : space.expand(program, kinds, stats, is_new, budget)) {
      if (next.cost >= options.alpha * best.cost) continue;
      if (next.cost < best.cost) {
        best = next;
        budget.report(fmt::format("expansion {}: best {:.1f} us after {} moves, {} queued", stats.expansions,
                                  best.cost, best.history.size(), queue.size()));
      }
      queue.insert(std::move(next));
    }
  }
  stats.stop_reason = StopReason::converged;
  return best;
}

}  // namespace pet::search
