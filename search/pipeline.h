// The optimization pipeline, from an imported graph to a checked optimized graph with a report.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/default_seed.h"
#include "core/graph.h"
#include "corrector/correct.h"
#include "search/passes/cleanup.h"
#include "search/search_budget.h"
#include "search/cost/cost_model.h"
#include "search/generate/generate_stage.h"
#include "search/measure/measured_selection.h"
#include "search/measure/target_setup.h"
#include "search/search_types.h"
#include "search/vocabulary.h"
#include "kernels/runtime/runtime.h"
#include "kernels/runtime/target_spec.h"
#include "verifier/differential.h"

namespace pet {
namespace search {
class RuleSet;
}

struct OptimizeOptions {
  Mode mode = Mode::pet;
  int beam = 8;                      // programs kept per search round
  TasoSearch taso_search = TasoSearch::alpha;  // taso mode: TASO's α-relaxed best-first search, or the beam
  double alpha = 1.05;               // α-search: expand programs costing up to α × the best
  int64_t max_expansions = search::kDefaultMaxExpansions;  // programs expanded, over the whole search
  int64_t max_candidates = search::kDefaultMaxCandidates;  // programs scored, over the whole search (deterministic)
  int64_t search_work = search::kDefaultSearchWork;  // nodes of the candidate programs built, summed (deterministic)
  int64_t mutant_work = 2'500'000'000;  // elements the mutant generator may read, in all (deterministic)
  int scored_per_expansion = 32;     // mutant moves scored per expanded program, best estimated gain first
  int stage_size = 4;                // convs per stage move (one layout family along a chain); below 2: none
  double time_limit_s = search::kDefaultTimeLimitSeconds;  // wall clock for the search after mutant generation (a backstop)
  int mutation_rounds = 2;           // mutants of mutants, per subprogram
  int top_k = 4;                     // mutants kept per subprogram and round, by cost
  int threads = 0;                   // generating mutants and scoring candidates (0: all cores, or one on a
                                     // measured target that is timing); no effect on results
  TargetSpec target;                 // ort-cpu on all cores unless given (TargetSpec::parse)
  std::string profile_db;            // measured costs (JSON); empty: the per-user cache for a target
                                     // measured here, the repository's bench/profiles/NAME.json for a GPU
  bool replay = false;               // read the profile DB only: nothing is timed, the output is reproducible
  // Measured targets: price with nothing stored (every kernel group, calibration run, end-to-end
  // time and the peak timed again) and save the new times over the DB's (a DB recorded under load).
  bool remeasure = false;
  int select_k = 3;                  // best programs timed end to end against the input (measured targets)
  int select_runs = 10;              // timed rounds of that comparison
  // Measured targets: the beam follows end-to-end times of its programs when timing them is
  // expected to take at most this many seconds (0: the cost model's predictions order the beam).
  double measured_search_s = 90;
  std::string rules_dir;             // rule library folder; empty: the repository's mutant/rules
  // A rule library already loaded (rules_dir is then not read): callers that optimize many graphs
  // (the harness, the fuzzer) load it once.
  std::shared_ptr<const search::RuleSet> rule_set;
  // Template placements the generator may try per subprogram and round (unset: no limit; the
  // fuzzer bounds each execution with it).
  std::optional<int64_t> mutant_placements;
  uint64_t seed = kDefaultSeed;              // seeds every random draw, including the differential check
  Tolerance tolerance;
  // The original's outputs per draw, shared with the caller's later checks (none: computed here).
  ReferenceOutputs* reference_outputs = nullptr;
  // Measured targets: fit the cost model's per-op scales on the cleaned input run whole under the
  // runtime's profiler before the search, or price with the stand-alone group times as they are.
  Calibration calibration = Calibration::in_context;
  // Called on the search's progress (a terminal shows a line); may be empty.
  std::function<void(const std::string&)> progress;

  // What target setup needs of these options.
  TargetOptions target_options() const { return {target, profile_db, replay, remeasure, seed, {}}; }
};

namespace search {
// The generation options `pet-opt` runs with for these OptimizeOptions (rounds, top K, seed,
// placements, work budget; one thread while a runtime times kernels).
GenerateOptions generate_options(const OptimizeOptions& options, const cost::CostModel& cost);
}  // namespace search

// How close the measured input and the written model come to the physical floor: the input's
// Conv/MatMul/Gemm FLOPs at the CPU's arithmetic peak in the runtime's precision
// (search/cost/physical_floor.h). A fraction near 1 leaves nothing for a rewrite that keeps the FLOPs.
struct FloorReport {
  bool known = false;             // false: analytic target, estimated selection, or no peak to be had
  std::string peak;               // "float32 FMA peak (avx512f)"
  double peak_gflops = 0;
  bool replayed = false;          // the peak came from the profile DB
  double flops = 0;
  double floor_us = 0;
  double input_fraction = 0;      // floor / the input's measured median
  double written_fraction = 0;    // floor / the written model's measured median
};

// A measured target's figures for the report.
struct TargetReport {
  cost::Target target;
  std::string profile_db;           // the DB file used
  cost::CostSources sources;        // kernel groups measured, replayed, estimated
  Selection selection;              // empty source for an analytic target
  double calibration_error = 0;     // predicted / measured end-to-end time of the cleaned input, minus 1
  bool calibrated = false;
  // In-context calibration (OptimizeOptions::calibration): the scales the search priced
  // with, fitted on the cleaned input run whole; and what the stand-alone sum alone predicted for it.
  cost::ContextScales context;
  double standalone_predicted_us = 0;
  double standalone_calibration_error = 0;  // the same error without the in-context scales
  FloorReport floor;
  std::string misses_file;          // where the timings the DB lacks were exported (--export-misses)
  size_t misses = 0;                // how many requests it holds
};

// What to do when the profile DB's stored times look stale ("" when they do not): a run that timed
// its candidates now, whose prediction for the cleaned input rests mostly on replayed kernel groups
// and misses its measured time by 50 % or more (recorded under other load, or machine state).
std::string stale_profile_note(const TargetReport& report);

struct OptimizeResult {
  Graph graph;
  std::vector<PassResult> passes;            // cleanup, then finalize
  std::vector<Transformation> transformations;
  SearchStats search;
  GenerationStats generation;                // zero in mode none
  double cost_original_us = 0;               // the imported graph after cleanup
  double cost_optimized_us = 0;              // the final graph (after finalize)
  std::string device;                        // the target's one-line description
  TargetReport target;
  DifferentialReport check;
  std::vector<StageTime> times;
};

// Runs the pipeline. Each stage dumps the textual IR to stderr when PET_DEBUG=1.
OptimizeResult optimize(const Graph& original, const OptimizeOptions& options);
// The same on the target `target` names (options.target_options() with what only target setup
// reads, such as the misses file of a GPU target).
OptimizeResult optimize(const Graph& original, const OptimizeOptions& options, const TargetOptions& target);

// The report: JSON (stable key order, no wall-clock times unless `with_times`) and a table.
// The object form lets a tool put its own fields first.
nlohmann::ordered_json report_object(const OptimizeResult& result, bool with_times);
std::string report_json(const OptimizeResult& result, bool with_times);
std::string report_table(const OptimizeResult& result);

}  // namespace pet
