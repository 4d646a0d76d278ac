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
#include "search/optimize_options.h"
#include "search/vocabulary.h"
#include "kernels/runtime/runtime.h"
#include "kernels/runtime/target_spec.h"
#include "verifier/differential.h"

namespace pet {
namespace search {
// The generation options `pet-opt` runs with for these OptimizeOptions: options.generate with the
// run's seed and cancellation, and one thread while a runtime times kernels unless threads are given.
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
  // In-context calibration (TargetOptions::calibration): the scales the search priced
  // with, fitted on the cleaned input run whole; and what the stand-alone sum alone predicted for it.
  cost::ContextScales context;
  double standalone_predicted_us = 0;
  double standalone_calibration_error = 0;  // the same error without the in-context scales
  FloorReport floor;
  // A GPU target replayed without times of this build's kernels: those of other kernels the DB
  // holds, set aside (times_of_other_kernels), else "".
  std::string other_kernels;
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
  // The program written: the selection's label on a measured target ("input", "cleaned",
  // "program N"); else "program 1", the search's best, or "cleaned" when it changed nothing.
  std::string chosen;
};

// Runs the pipeline. Each stage dumps the textual IR to stderr when PET_DEBUG=1.
OptimizeResult optimize(const Graph& original, const OptimizeOptions& options);

// The report: JSON (stable key order, no wall-clock times unless `with_times`) and a table. The
// JSON starts with the written model's speedup over the input, "speedup_source" saying whether it
// was measured (or replayed) end to end or estimated by the cost model, and the program "chosen".
// The object form lets a tool put its own fields first.
nlohmann::ordered_json report_object(const OptimizeResult& result, bool with_times);
std::string report_json(const OptimizeResult& result, bool with_times);
std::string report_table(const OptimizeResult& result);

}  // namespace pet
