// examine(): decides whether a candidate multi-linear program equals the original everywhere
// (Full), on all but some summation boxes (Partial, with those boxes), or neither (Rejected),
// by testing a few positions per box on random inputs over Z_p (PET's Theorems 1 and 2).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/default_seed.h"
#include "core/box_grid.h"
#include "core/graph.h"

namespace pet {

enum class VerdictKind { Full, Partial, Rejected };

struct Verdict {
  VerdictKind kind = VerdictKind::Rejected;
  std::string reason;                              // why it was rejected
  std::vector<std::vector<Box>> incorrect_boxes;   // per graph output
  double fraction_correct = 0;                     // of all output elements
  uint64_t seed = 0;
  int trials = 0;
  int degree = 0;              // polynomial degree bound of the two programs
  int64_t boxes_tested = 0;
  int64_t points_tested = 0;   // positions per trial
  double bound_log2 = 0;       // log2 of the probability that a wrong box passed
  int64_t work = 0;            // elements the evaluation read (FieldEvaluator::reads), screening included
  std::string summary() const;
};

struct ExamineOptions {
  uint64_t seed = kDefaultSeed;
  int trials = 0;                     // 0: as few as give a bound below 2^target_bound_log2
  double target_bound_log2 = -100;
  double min_fraction_correct = 0.5;  // below this a candidate is Rejected, not Partial
  // Before the box analysis, compare each output at a quarter, half and three quarters of every
  // axis; wrong at all of them is Rejected at once (partial programs are wrong on thin seams,
  // which cannot cover all three). For generators that examine many hopeless candidates.
  bool screen_first = false;
  // Past this many element reads examine stops and rejects the candidate: a budget that ends at
  // the same place on every run (there is no clock limit, which would not). Unset: none.
  std::optional<int64_t> max_work;
};

Verdict examine(const Graph& original, const Graph& candidate, const ExamineOptions& options = {});

class FieldEvaluator;

// The original's side of examine() for many candidates of one original under one seed: whether it
// can be examined, its degree, its box grids, and per trial its values at every point a candidate
// asked, kept between candidates (a mutant generator examines thousands of candidates against one
// subprogram, and half of every examination was the original's). The elements it reads are
// counted where they are read: a value an earlier candidate asked costs a later one a single read.
class ExamineReference {
 public:
  ExamineReference(const Graph& original, uint64_t seed);
  ~ExamineReference();
  ExamineReference(const ExamineReference&) = delete;
  ExamineReference& operator=(const ExamineReference&) = delete;

  const Graph& original() const { return original_; }
  uint64_t seed() const { return seed_; }

 private:
  friend struct ReferenceMemory;  // examine.cpp's lazy reads of what is kept below

  const Graph& original_;
  uint64_t seed_;
  std::optional<std::string> refusal_;  // why the original cannot be examined, "" when it can
  std::optional<int> degree_;
  std::optional<std::vector<BoxGrid>> grids_;
  std::vector<std::unique_ptr<FieldEvaluator>> trials_;
};

// examine() against the reference's original; options.seed must be the reference's.
Verdict examine(ExamineReference& reference, const Graph& candidate, const ExamineOptions& options = {});

std::string verdict_kind_name(VerdictKind kind);

}  // namespace pet
