// The harness's results as data, and their markdown and CSV renderings (pure functions).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "search/vocabulary.h"

namespace pet::bench {

// One candidate's end-to-end time on a measured target, with what the cost model predicted for it.
struct Latency {
  double predicted_us = 0;
  double median_us = 0;  // 0: no end-to-end time (a replayed DB without one)
  double spread_us = 0;  // half the interquartile range of the timed runs
};

// What a measured target's end-to-end selection found for one run.
struct MeasuredRun {
  std::string source;   // "measured", "replayed", or "estimated" (chosen by prediction)
  Latency input;        // the model as given
  Latency written;      // the model written: the chosen candidate
  std::string chosen;   // its label: "input", "cleaned", "program 1", ...
  std::optional<double> calibration_error;  // predicted / measured - 1 for the cleaned input
  int64_t kernels_measured = 0;  // distinct kernel groups whose cost was timed in this run,
  int64_t kernels_replayed = 0;  // read from the profile DB,
  int64_t kernels_estimated = 0;  // or estimated (neither)
  double measuring_seconds = 0;  // wall clock spent timing kernel groups
};

// One optimization run: a model at a batch size in one mode.
struct HarnessRow {
  std::string model;
  int batch = 1;
  Mode mode = Mode::pet;
  std::string error;  // non-empty: the run failed with this message and the numbers are unset
  double cost_original_us = 0;   // estimated, the imported graph after cleanup and finalize
  double cost_us = 0;            // estimated, the optimized graph
  double search_seconds = 0;     // wall clock (non-deterministic, as are a measured target's times)
  std::string stop_reason;
  int transformations = 0;
  std::map<EvidenceKind, int> by_evidence;
  std::vector<std::pair<std::string, int>> by_family;  // most frequent first, ties by name
  bool check_passed = true;
  double check_max_abs_error = 0;
  std::optional<double> measured_ms;  // end-to-end GPU time; nullopt until a GPU runtime exists
  std::optional<MeasuredRun> measured_run;  // measured targets only
};

// A model file the harness looked for and did not run.
struct SkippedModel {
  std::string model;
  int batch = 1;
  std::string reason;
};

struct HarnessTable {
  std::string target;   // as asked for: "ort-cpu", "h100", a device spec file
  std::string device;   // the first finished run's description of it; empty before one finishes
  bool measured = false;  // a measured target: the report shows the end-to-end times
  int beam = 0;
  double time_limit_s = 0;
  unsigned long long seed = 0;
  int select_runs = 0;  // measured targets: timed rounds of each end-to-end selection
  std::vector<Mode> modes;         // the order of the runs per model and batch
  std::vector<HarnessRow> rows;    // model x batch x mode, in the order run
  std::vector<SkippedModel> skipped;
};

// The evidence kinds the report counts, in column order.
const std::vector<EvidenceKind>& evidence_kinds();

// The family a transformation is counted under: for a rule ("rule", "relu-concat-0-to-concat-
// 0-relu-00ab12"), "rule:" and the op names of its left side; for a mutant, "mutant:" and its
// template family (the chain of template names).
std::string transformation_family(const std::string& kind, const std::string& name);
// Counts families, most frequent first, ties broken by name.
std::vector<std::pair<std::string, int>> count_families(const std::vector<std::string>& families);

// baseline_us / cost_us: how many times faster `cost_us` is; nullopt when either is not positive.
std::optional<double> speedup(double baseline_us, double cost_us);
// The row of `mode` for the same model and batch as `row`, or null (none, or it failed).
const HarnessRow* find_run(const HarnessTable& table, const HarnessRow& row, Mode mode);
// Speedup of `row` over the none row (else over the row's own unoptimized cost), and over taso.
std::optional<double> speedup_vs_none(const HarnessTable& table, const HarnessRow& row);
std::optional<double> speedup_vs_taso(const HarnessTable& table, const HarnessRow& row);
// On a measured target: the input's median time / the written model's; nullopt without both.
std::optional<double> measured_speedup(const HarnessRow& row);
// The same ratio as the cost model predicted it.
std::optional<double> predicted_speedup(const HarnessRow& row);
// The geometric mean of the measured speedups of `mode`'s rows and how many rows it covers.
std::pair<std::optional<double>, int> geometric_mean_measured_speedup(const HarnessTable& table, Mode mode);
// What the report's title names: the device description, else the target asked for.
std::string target_title(const HarnessTable& table);

// The report page: settings, one table row per run, the models skipped and why.
std::string harness_markdown(const HarnessTable& table);
// The same runs, one CSV line each (RFC 4180 quoting), with a header line.
std::string harness_csv(const HarnessTable& table);
// One CSV field: quoted (with doubled quotes) when it holds a comma, quote, CR or LF.
std::string csv_field(const std::string& text);

}  // namespace pet::bench
