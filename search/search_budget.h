// The budgets every search algorithm honours: candidates scored, the nodes of the candidates
// built and programs expanded (which end a search at the same place on every run and machine) and
// the wall clock (a backstop for slow machines), each ending the search with its stop reason; and
// the caller's cancellation, which ends it with Cancelled.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/error.h"
#include "search/vocabulary.h"

namespace pet::search {

// A search's limits, as a caller chooses them (pet-opt's flags read their defaults from here): the
// counted ones end a search at the same place on every run and machine, the clock is a backstop.
struct SearchLimits {
  double time_limit_s = 100;
  int64_t max_expansions = 2000;   // programs expanded
  int64_t max_candidates = 20000;  // programs scored
  // Nodes of the candidate programs built, summed: what a search's time grows with (a candidate of
  // BERT costs twelve of ResNet-18), so large graphs stop here before the clock does.
  int64_t max_work = 2'000'000;
};

struct SearchBudget {
  SearchLimits limits;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::function<void(const std::string&)> progress;  // may be empty
  // Asked before each expansion and each candidate scored; true ends the search with Cancelled.
  CancelHook cancelled;
  // Seconds not charged to the search (timing kernels in a measured target); may be empty.
  std::function<double()> excluded_seconds;

  double elapsed() const {
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return excluded_seconds ? wall - excluded_seconds() : wall;
  }
  // Compared in seconds as doubles, never turned into a clock time point: a limit of 1e300 s (or
  // infinity) is simply never reached instead of overflowing the clock's tick count.
  bool out_of_time() const { return elapsed() >= limits.time_limit_s; }
  // The budget that ends the search before it scores one more candidate, or nullopt to go on;
  // throws Cancelled when the caller stopped the run.
  std::optional<StopReason> spent(int64_t candidates, int64_t work) const {
    throw_if_cancelled(cancelled);
    if (out_of_time()) return StopReason::time_limit;
    if (candidates >= limits.max_candidates) return StopReason::candidate_limit;
    if (work >= limits.max_work) return StopReason::work_limit;
    return std::nullopt;
  }
  // The reason to stop before expanding one more program, or nullopt to go on.
  std::optional<StopReason> exhausted(int64_t expansions, int64_t candidates, int64_t work) const {
    if (std::optional<StopReason> reason = spent(candidates, work)) return reason;
    if (expansions >= limits.max_expansions) return StopReason::expansion_limit;
    return std::nullopt;
  }
  void report(const std::string& line) const {
    if (progress) progress(line);
  }
};

}  // namespace pet::search
