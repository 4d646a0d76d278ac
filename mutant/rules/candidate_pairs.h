// Candidate rules: programs of one shape class with equal fingerprints, paired, then pruned of
// pairs another pair already implies (TASO's redundancy pruning).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mutant/rules/enumerate.h"

namespace pet::rules {

struct CandidatePair {
  int left = 0;  // indices into the class's enumerated programs; left is the side rewritten
  int right = 0;
  uint64_t canonical_key = 0;  // the pair's key, minimal over input renamings
};

struct PairingStats {
  size_t fingerprint_classes = 0;  // distinct fingerprints
  size_t shared_classes = 0;       // fingerprints two or more programs share
  size_t candidate_pairs = 0;
  size_t common_subgraph = 0;   // pruned: both sides compute some value the same way
  size_t common_context = 0;    // pruned: both sides end in the same op on equal values
  size_t one_sided_inputs = 0;  // pruned: neither side reads only inputs of the other
  size_t renamings = 0;         // pruned: another pair is the same up to renaming inputs
  size_t substitutions = 0;     // pruned: another pair with some inputs identified gives it
  size_t kept = 0;
};

// Pairs of equal fingerprint, at most `max_class_pairs` per fingerprint class (beyond that each
// program pairs with the class's first), pruned; sorted by canonical key.
std::vector<CandidatePair> candidate_pairs(const ShapeClass& shape_class,
                                           const std::vector<EnumeratedProgram>& programs, size_t max_class_pairs,
                                           PairingStats& stats);

}  // namespace pet::rules
