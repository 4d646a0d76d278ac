// Proves candidate rules with the Z3 prover on several threads; results land in input order, so
// the outcome does not depend on thread timing.
#pragma once

#include <vector>

#include "core/graph.h"
#include "verifier/z3/prover.h"

namespace pet::rules {

struct ProofJob {
  Graph lhs;
  Graph rhs;
};

// One result per job, in job order. Sides with an interface_mismatch are Unknown with its message.
std::vector<ProofResult> prove_all(const std::vector<ProofJob>& jobs, const ProveOptions& options, int threads);

}  // namespace pet::rules
