// Proves the rule candidates on a pool of threads, one result per job in job order.
#include "mutant/rules/prove_pairs.h"

#include <algorithm>

#include "core/parallel.h"

namespace pet::rules {
namespace {

ProofResult prove_one(const ProofJob& job, const ProveOptions& options) {
  ProofResult unknown;
  unknown.reason = interface_mismatch(job.lhs, job.rhs);
  if (!unknown.reason.empty()) return unknown;
  return prove(job.lhs, job.rhs, options);
}

}  // namespace

std::vector<ProofResult> prove_all(const std::vector<ProofJob>& jobs, const ProveOptions& options, int threads) {
  std::vector<ProofResult> results(jobs.size());
  for_each_in_parallel(jobs.size(), static_cast<unsigned>(std::clamp(threads, 1, 64)),
                       [&](size_t i) { results[i] = prove_one(jobs[i], options); });
  return results;
}

}  // namespace pet::rules
