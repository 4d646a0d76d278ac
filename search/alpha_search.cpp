// TASO's α-relaxed best-first search.
#include "search/alpha_search.h"

#include <algorithm>
#include <iterator>
#include <set>

#include <fmt/format.h>

namespace pet::search {
namespace {

struct Cheaper {
  bool operator()(const Program& a, const Program& b) const { return better(a, b); }
};

// The `keep` cheapest programs seen so far, ordered by (cost, hash).
class Cheapest {
 public:
  explicit Cheapest(size_t keep) : keep_(std::max<size_t>(keep, 1)) {}
  void offer(const Program& program) {
    programs_.insert(program);
    if (programs_.size() > keep_) programs_.erase(std::prev(programs_.end()));
  }
  const Program& best() const { return *programs_.begin(); }
  std::vector<Program> take() { return {programs_.begin(), programs_.end()}; }

 private:
  size_t keep_;
  std::set<Program, Cheaper> programs_;
};

// The queued programs a better best put beyond `limit`, which the search would pop and skip: freed now
// (whole programs; the queue is ordered by cost, so they are its tail).
void drop_beyond(std::set<Program, Cheaper>& queue, double limit) {
  while (!queue.empty() && std::prev(queue.end())->cost > limit) queue.erase(std::prev(queue.end()));
}

// The queued programs the expansions left can never reach, freed now: every queued program is within
// alpha of the best (drop_beyond sees to that), so each pop is an expansion, and a program behind
// `pops_left` others is never popped (a program queued later only ever goes before it). One is kept
// when none can be popped, so the search still stops at the expansion limit with a program waiting
// rather than having converged.
void keep_poppable(std::set<Program, Cheaper>& queue, int64_t pops_left) {
  const auto keep = static_cast<size_t>(std::max<int64_t>(pops_left, 1));
  while (queue.size() > keep) queue.erase(std::prev(queue.end()));
}

}  // namespace

std::vector<Program> alpha_search(Program start, const SearchSpace& space, const MoveKinds& kinds,
                                  const AlphaOptions& options, const SearchBudget& budget, SearchStats& stats,
                                  std::unordered_set<uint64_t>& seen) {
  seen.insert(start.hash);
  Cheapest kept(options.keep);
  kept.offer(start);
  std::set<Program, Cheaper> queue;  // ordered by (cost, hash): deterministic
  queue.insert(std::move(start));
  stats.queued_peak = std::max<int64_t>(stats.queued_peak, 1);
  auto is_new = [&seen](uint64_t hash) { return seen.insert(hash).second; };
  while (!queue.empty()) {
    if (std::optional<StopReason> reason = budget.exhausted(stats.expansions, stats.candidates, stats.work)) {
      stats.stop_reason = *reason;
      return kept.take();
    }
    Program program = std::move(queue.extract(queue.begin()).value());
    if (program.cost > options.alpha * kept.best().cost) continue;  // queued when the best was worse
    ++stats.expansions;
    for (Program& next : space.expand(program, kinds, stats, is_new, budget)) {
      if (next.cost >= options.alpha * kept.best().cost) continue;
      bool improves = next.cost < kept.best().cost;
      kept.offer(next);
      if (improves) {
        drop_beyond(queue, options.alpha * kept.best().cost);
        budget.report(fmt::format("expansion {}: best {:.1f} us after {} moves, {} queued", stats.expansions,
                                  next.cost, next.history.size(), queue.size()));
      }
      queue.insert(std::move(next));
      keep_poppable(queue, budget.limits.max_expansions - stats.expansions);
      stats.queued_peak = std::max(stats.queued_peak, static_cast<int64_t>(queue.size()));
    }
  }
  stats.stop_reason = StopReason::converged;
  return kept.take();
}

}  // namespace pet::search
