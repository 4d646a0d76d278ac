// The records the search's stages share with the pipeline and its report: one applied
// transformation with its evidence, and each stage's figures. Lower files include this, never
// search/pipeline.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "corrector/correct.h"
#include "search/vocabulary.h"

namespace pet {

struct StageTime {
  std::string stage;
  double seconds;
};

// A corrected partial mutant at one site: the subprogram its corrections recompute boxes with
// (the original, as the site had it: its inputs carry the program's value names) and the
// corrections; what `pet-opt --emit-kernels` lowers to CUDA.
struct CorrectedSite {
  Graph original;
  std::vector<corrector::Correction> corrections;
};

// One applied transformation with its evidence, as the report lists it.
struct Transformation {
  TransformationKind kind = TransformationKind::rule;
  std::string name;             // rule name, or the mutant's template family
  std::string location;         // names of the replaced nodes
  EvidenceKind evidence_kind = EvidenceKind::construction;
  std::string evidence;         // axioms used / error bound and seed / corrected boxes
  double cost_before_us = 0;    // of the whole program before and after this step
  double cost_after_us = 0;
  double correction_overhead = 0;  // correction cost / mutant cost (partial+correction only)
  std::vector<std::shared_ptr<const CorrectedSite>> corrected_sites;  // partial+correction: one per site
};

// Measured ranking of the beam (search/measure/measured_ranking.h): whether it ran, and what it timed.
struct RankingStats {
  bool on = false;
  std::string why;        // why the search was, or was not, ranked by measurement
  int64_t timed = 0;      // programs timed in the runtime
  int64_t replayed = 0;   // programs whose ranked time the profile DB held
  int64_t rejected = 0;   // programs the runtime refused (ranked last)
  int64_t requests = 0;   // timing requests (one per round with something new)
  double seconds = 0;     // wall clock spent ranking: finalizing, serializing and timing programs
};

struct SearchStats {
  SearchAlgorithm algorithm = SearchAlgorithm::none;
  StopReason stop_reason = StopReason::no_search;
  int64_t rounds = 0;
  int64_t expansions = 0;        // programs expanded
  int64_t candidates = 0;        // programs built by one move
  int64_t duplicates = 0;        // of those, seen before (canonical hash)
  int64_t work = 0;              // nodes of those programs, summed (the --search-work budget)
  int64_t queued_peak = 0;       // alpha search: the most programs queued at once (whole programs)
  int64_t rule_applications = 0;
  int64_t rule_proofs = 0, rule_proofs_failed = 0;
  std::vector<std::string> rule_proofs_failed_detail;         // FailedInstance::describe() of each failed proof
  std::map<std::string, int64_t> rule_applications_by_rule;  // per rule direction name
  double seconds = 0;                // the whole search, mutant generation included
  RankingStats ranking;
};

// The mutant generation stage's figures (search/generate/generate_stage.h).
struct GenerationStats {
  int64_t linear = 0;            // distinct multi-linear regions mutated
  int64_t groups = 0;            // distinct parallel groups mutated
  int64_t mutants_full = 0, mutants_partial = 0;  // found, before each round keeps its best
  int64_t work = 0;              // elements the generator's Z_p evaluations read, in all
  int64_t capped = 0;            // subprograms whose generation spent its work budget
  double seconds = 0;            // wall clock, all threads
  int64_t subprograms() const { return linear + groups; }
};

}  // namespace pet
