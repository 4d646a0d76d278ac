// The budgets every search algorithm honours: wall clock and expansions, ending with a stop reason.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace pet::search {

struct SearchBudget {
  double time_limit_s = 60;
  int64_t max_expansions = 2000;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::function<void(const std::string&)> progress;  // may be empty

  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  bool out_of_time() const { return elapsed() >= time_limit_s; }
  std::chrono::steady_clock::time_point deadline() const {
    return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(time_limit_s));
  }
  // The reason to stop before expanding one more program, or "" to go on.
  std::string exhausted(int64_t expansions) const {
    if (out_of_time()) return "time-limit";
    if (expansions >= max_expansions) return "expansion-limit";
    return "";
  }
  void report(const std::string& line) const {
    if (progress) progress(line);
  }
};

}  // namespace pet::search
