// The Z3 prover for full-equivalence rules: both sides become terms over uninterpreted functions,
// the axiom schemas are instantiated for the goal's signatures and quantified over their input
// tensors (E-matching on the left side), and Z3 searches for a proof within a time limit.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"
#include "verifier/axioms/axiom.h"
#include "verifier/axioms/instantiate.h"

namespace pet {

enum class ProofStatus {
  Proved,   // the axioms imply that every output of the two sides is equal
  Refuted,  // the sides differ on concrete seeded inputs (the reason names output, error and seed)
  Unknown,  // no proof: not implied by the instances, limits reached, or Z3 failed; the reason says which
};

std::string_view proof_status_name(ProofStatus status);

struct ProveOptions {
  std::chrono::milliseconds timeout{2000};  // Z3's limit; instantiation is bounded by `limits`
  // Z3's deterministic resource limit (0: none). Unlike the timeout, the same goal gets the same
  // answer on a loaded machine, so batch runs that must be reproducible set it.
  uint64_t rlimit = 0;
  axioms::InstantiationLimits limits;
  bool numeric_refutation = true;  // first run both sides on seeded random inputs
  // ... when the sides' inputs hold at most this many elements in all: above it the run on the
  // executor (a batch-16 conv takes seconds) is skipped and Z3 alone decides.
  int64_t numeric_refutation_max_elements = INT64_MAX;
  uint64_t seed = 1;
  const std::vector<axioms::AxiomSchema>* axioms = nullptr;  // all_axioms() when null
};

struct ProofResult {
  ProofStatus status = ProofStatus::Unknown;
  std::string reason;
  double seconds = 0;                         // whole call, numeric check and instantiation included
  std::vector<std::string> axioms_used;       // instances in Z3's unsat core (Proved only)
  std::vector<std::string> axioms_available;  // every instance given to Z3
  uint64_t resource_units = 0;                // Z3's "rlimit count": deterministic proof effort
  bool numerically_checked = false;           // the sides were run on random inputs before Z3
};

// Why lhs and rhs cannot be compared, or empty: inputs of the same name must have the same type
// (an input on one side only is still quantified), and the outputs must have the same types.
std::string interface_mismatch(const Graph& lhs, const Graph& rhs);

// Proves lhs == rhs output by output. Graph inputs are universally quantified tensors matched by
// name; sides with an interface_mismatch are a UserError (the sides of a user's rule file). Never
// throws for a Z3 failure or hang: those are Unknown with a reason.
ProofResult prove(const Graph& lhs, const Graph& rhs, const ProveOptions& options = {});
ProofResult prove(const Graph& lhs, const Graph& rhs, std::chrono::milliseconds timeout);

}  // namespace pet
