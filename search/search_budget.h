// The budgets every search algorithm honours: candidates scored and programs expanded (which end
// a search at the same place on every run) and the wall clock (a backstop for slow machines),
// each ending the search with its stop reason.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace pet::search {

struct SearchBudget {
  double time_limit_s = 60;
  int64_t max_expansions = 2000;
  int64_t max_candidates = 20000;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::function<void(const std::string&)> progress;  // may be empty
  // Seconds not charged to the search (timing kernels in a measured target); may be empty.
  std::function<double()> excluded_seconds;

  double elapsed() const {
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return excluded_seconds ? wall - excluded_seconds() : wall;
  }
  // Compared in seconds as doubles, never turned into a clock time point: a limit of 1e300 s (or
  // infinity) is simply never reached instead of overflowing the clock's tick count.
  bool out_of_time() const { return elapsed() >= time_limit_s; }
  // The budget that ends the search before it scores one more candidate, or "" to go on.
  std::string spent(int64_t candidates) const {
    if (out_of_time()) return "time-limit";
    if (candidates >= max_candidates) return "candidate-limit";
    return "";
  }
  // The reason to stop before expanding one more program, or "" to go on.
  std::string exhausted(int64_t expansions, int64_t candidates) const {
    if (std::string reason = spent(candidates); !reason.empty()) return reason;
    if (expansions >= max_expansions) return "expansion-limit";
    return "";
  }
  void report(const std::string& line) const {
    if (progress) progress(line);
  }
};

}  // namespace pet::search
