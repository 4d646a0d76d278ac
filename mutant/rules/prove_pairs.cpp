// A fixed pool of std::threads taking jobs from an atomic counter.
#include "mutant/rules/prove_pairs.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/error.h"

namespace pet::rules {
namespace {

ProofResult prove_one(const ProofJob& job, const ProveOptions& options) {
  try {
    return prove(job.lhs, job.rhs, options);
  } catch (const UserError& error) {
    ProofResult result;
    result.reason = error.what();
    return result;
  }
}

}  // namespace

std::vector<ProofResult> prove_all(const std::vector<ProofJob>& jobs, const ProveOptions& options, int threads) {
  std::vector<ProofResult> results(jobs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) results[i] = prove_one(jobs[i], options);
  };
  std::vector<std::thread> pool;
  int count = std::clamp(threads, 1, 64);
  for (int t = 1; t < count; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  return results;
}

}  // namespace pet::rules
