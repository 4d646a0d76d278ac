// The mutant generator: from a multi-linear subprogram, a depth-bounded search builds candidate
// programs over the same inputs with the same output types, examines each, and keeps the fully
// and partially equivalent ones with their verdicts.
#pragma once

#include <optional>

#include <cstdint>
#include <string>
#include <vector>

#include "core/default_seed.h"
#include "core/error.h"
#include "core/graph.h"
#include "mutant/template.h"
#include "verifier/examine.h"

namespace pet::mutant {

enum class Equivalence { FullOnly, PartialOnly, Both };

struct GeneratorOptions {
  int depth = 3;      // ops on any input-to-output path
  int max_ops = 6;      // ops in a candidate
  int max_pre_ops = 2;  // input transforms in a candidate (the families need at most two)
  int max_post_ops = 2; // closing transforms in a candidate
  Equivalence equivalence = Equivalence::Both;
  // Partial mutants are worth correcting only when the wrong region is small; most candidates
  // are hopeless, so examine screens them first.
  ExamineOptions examine = {.seed = kDefaultSeed, .trials = 0, .target_bound_log2 = -100, .min_fraction_correct = 0.9,
                             .screen_first = true, .max_work = std::nullopt};
  std::vector<MutantTemplate> templates = default_templates();
  // The target's preferred channel multiples, which the pad-channels template pads up to (the
  // vector block of a CPU runtime's blocked layouts); empty: channels are not padded.
  std::vector<int64_t> channel_multiples = {};
  // The enumeration stops once its Z_p evaluations have read this many elements
  // (GeneratorStats::work). The generator has no clock limit: a counted budget stops at the same
  // candidate on every run, so the mutants found depend neither on the machine's speed or load
  // nor on how many subprograms are generated in parallel (--jobs). Unset: no limit.
  std::optional<int64_t> max_work;
  // The enumeration also stops once it has tried this many template placements (placed or refused
  // by a prune): a counted bound on the search itself, which can be large while it reads few
  // elements (groups of three small ops). An attribute set the op's shape rule refuses is not a
  // placement: the domains offer every axis and value, and a shape check is cheap. Unset: no limit.
  std::optional<int64_t> max_placements;
  // Asked at every step of the enumeration and before each candidate is examined; true ends the
  // generation with Cancelled. May be empty.
  CancelHook cancelled;
};

struct Mutant {
  Graph program;
  Verdict verdict;
  std::string family;  // the template names of its ops, in order
};

// What the search built and why it dropped what it dropped.
struct GeneratorStats {
  int64_t placed = 0;              // template applications that passed the shape rule
  int64_t shape_mismatches = 0;    // rejected by an op's shape rule
  int64_t repeated_ops = 0;        // the same op on the same inputs twice
  int64_t cancelling_layouts = 0;  // transforms that recompute an existing value (cancelling chains)
  int64_t unused_transforms = 0;   // input transforms no compute op reads
  int64_t branching_transforms = 0;  // a second transform of a value already transformed
  int64_t off_target = 0;          // a last closing op that does not produce an output type
  int64_t dead_ops = 0;            // candidates with ops that reach no output
  int64_t duplicates = 0;          // candidates with a structural hash seen before
  int64_t examined = 0;            // every candidate; rejected ones include the screened-out
  int64_t full = 0, partial = 0, rejected = 0;
  int64_t screened_out = 0;        // of the rejected: wrong at every screening point
  double seconds = 0;
  int64_t work = 0;                // elements read by the Z_p evaluations (examine and the layout prune)
  int64_t prune_work = 0;          // of those, by the layout prune (recomputes_existing_value)
  bool out_of_work = false;        // the work budget (or the placement budget) cut it short
  bool empty_tensors = false;      // the subprogram reads or writes an empty tensor: not mutated
  std::string summary() const;
};

struct Generation {
  std::vector<Mutant> mutants;  // sorted: full first, then by fraction correct, ties by hash
  GeneratorStats stats;
};

// Internal check when the subprogram is not examinable (non-linear ops); callers partition first.
// A subprogram with an empty tensor (a zero dimension) computes nothing and gets no mutants.
Generation generate_mutants(const Graph& subprogram, const GeneratorOptions& options = {});

// Whether a value of the graph has a zero dimension.
bool has_empty_tensor(const Graph& graph);

}  // namespace pet::mutant
