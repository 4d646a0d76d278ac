// The harness's runs: every model x batch x mode through the optimization pipeline, then the
// report files (markdown, CSV and PNG charts).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "bench/harness_report.h"
#include "core/graph.h"
#include "search/pipeline.h"

namespace pet::bench {

struct HarnessOptions {
  std::string models_dir;               // holds <model>_b<batch>/model.onnx
  std::vector<std::string> models;      // empty: every evaluation model
  std::vector<int> batches = {1, 16};
  std::vector<Mode> modes = all_modes();
  int beam = OptimizeOptions{}.beam;                  // these as pet-opt's defaults
  double time_limit_s = OptimizeOptions{}.time_limit_s;  // per search
  std::string target = OptimizeOptions{}.target;      // measured (ort-cpu, ...) or estimated (h100, ...)
  int runtime_threads = OptimizeOptions{}.runtime_threads;  // 0: all cores
  std::string profile_db = OptimizeOptions{}.profile_db;    // empty: the pipeline's default
  bool replay = OptimizeOptions{}.replay;             // read the profile DB only, time nothing
  int select_runs = OptimizeOptions{}.select_runs;    // timed rounds of each end-to-end selection
  std::string out_dir = "build/harness";
  uint64_t seed = OptimizeOptions{}.seed;
  bool verbose = false;                 // forward the search's own progress lines
};

// The evaluation models, in report order (models/zoo.py's names).
const std::vector<std::string>& evaluation_models();
std::string model_path(const std::string& models_dir, const std::string& model, int batch);

// The pipeline's options for one run of the harness.
OptimizeOptions optimize_options(const HarnessOptions& options, Mode mode);
// One table row from a pipeline result; a measured target's selection fills `measured_run`.
HarnessRow summarize_run(const std::string& model, int batch, Mode mode, const OptimizeResult& result);

// The line logged after a run; `table` holds the run as its last row (the line counts the rows).
std::string progress_line(const HarnessTable& table, const HarnessRow& row);

// Optimizes `graph` in every mode of `options`, appending one row per mode to `table` (a run
// that throws becomes a row with its error) and writing one progress line per run to `log`.
void run_model(HarnessTable& table, const std::string& model, int batch, const Graph& graph,
               const HarnessOptions& options, std::ostream& log);

// Imports each model file and runs it (run_model); missing or unreadable files are skipped
// and listed in the table. `after_model`, when given, sees the table after each model and batch
// (the tool rewrites its report files then, so a long evaluation cut short still leaves one).
HarnessTable run_harness(const HarnessOptions& options, std::ostream& log,
                         const std::function<void(const HarnessTable&)>& after_model = {});

// Writes harness.md, harness.csv, cost.png, speedup.png and search_time.png into `out_dir`
// (created if needed); returns the paths written.
std::vector<std::string> write_harness_outputs(const HarnessTable& table, const std::string& out_dir);

}  // namespace pet::bench
