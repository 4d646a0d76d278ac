// The harness's loop over models, batches and modes, and the files it writes at the end.
#include "bench/harness_run.h"

#include <filesystem>
#include <fstream>
#include <ostream>

#include <fmt/format.h>

#include "bench/harness_charts.h"
#include "bench/png_chart.h"
#include "core/error.h"
#include "core/onnx_import.h"
#include "kernels/runtime/runtime.h"

namespace pet::bench {
namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file) throw UserError(fmt::format("cannot write '{}'; check that its folder is writable", path));
}

std::string progress_tail(const HarnessRow& row) {
  return fmt::format("{} transformations, {}, {:.2f} s, check {}", row.transformations, row.stop_reason,
                     row.search_seconds, row.check_passed ? "passed" : "FAILED");
}

Latency latency_of(const TimedCandidate& candidate) {
  return {candidate.predicted_us, candidate.median_us, candidate.spread_us};
}

// A measured target's end-to-end figures; nullopt for an analytic target (no selection ran).
std::optional<MeasuredRun> measured_run_of(const OptimizeResult& result) {
  const Selection& selection = result.target.selection;
  if (selection.source.empty() || selection.chosen >= selection.candidates.size()) return std::nullopt;
  MeasuredRun run;
  run.source = selection.source;
  run.input = latency_of(selection.candidates[0]);
  run.written = latency_of(selection.candidates[selection.chosen]);
  run.chosen = selection.candidates[selection.chosen].label;
  if (result.target.calibrated) run.calibration_error = result.target.calibration_error;
  run.kernels_measured = result.target.sources.measured;
  run.kernels_replayed = result.target.sources.replayed;
  run.kernels_estimated = result.target.sources.estimated;
  run.measuring_seconds = result.target.sources.measuring_seconds;
  return run;
}

// The first finished run names the target in the report (its runtime, threads and CPU).
void note_device(HarnessTable& table, const OptimizeResult& result) {
  if (!table.device.empty()) return;
  table.device = result.device;
  table.measured = table.measured || result.target.target.measured;
}

}  // namespace

const std::vector<std::string>& evaluation_models() {
  static const std::vector<std::string> models = {"resnet18",       "resnet50",  "inception_v3_299",
                                                  "inception_v3_330", "csrnet",  "csrnet_backend",
                                                  "bert_s128",      "bert_s512", "r3d_18"};
  return models;
}

std::string model_path(const std::string& models_dir, const std::string& model, int batch) {
  return (std::filesystem::path(models_dir) / fmt::format("{}_b{}", model, batch) / "model.onnx").string();
}

OptimizeOptions optimize_options(const HarnessOptions& options, Mode mode) {
  OptimizeOptions result;
  result.mode = mode;
  result.beam = options.beam;
  result.time_limit_s = options.time_limit_s;
  result.target = options.target;
  result.runtime_threads = options.runtime_threads;
  result.profile_db = options.profile_db;
  result.replay = options.replay;
  result.select_runs = options.select_runs;
  result.seed = options.seed;
  return result;
}

// A measured target's line leads with the end-to-end times ("measured:" or "replayed:"), else the estimates.
std::string progress_line(const HarnessTable& table, const HarnessRow& row) {
  std::string head = fmt::format("[{}] {} b{} {}:", table.rows.size(), row.model, row.batch, to_string(row.mode));
  if (!row.error.empty()) return fmt::format("{} failed: {}", head, row.error);
  if (row.measured_run && measured_speedup(row)) {
    const MeasuredRun& run = *row.measured_run;
    return fmt::format("{} {}: {:.1f} us -> {:.1f} us ({:.3f}x, chose {}), predicted {:.3f}x, {}", head, run.source,
                       run.input.median_us, run.written.median_us, *measured_speedup(row), run.chosen,
                       predicted_speedup(row).value_or(0), progress_tail(row));
  }
  std::optional<double> gain = speedup(row.cost_original_us, row.cost_us);
  std::string chosen = row.measured_run ? fmt::format(", chose {} by prediction", row.measured_run->chosen) : "";
  return fmt::format("{} {:.1f} us -> {:.1f} us ({:.3f}x{}), {}", head, row.cost_original_us, row.cost_us,
                     gain.value_or(0), chosen, progress_tail(row));
}

HarnessRow summarize_run(const std::string& model, int batch, Mode mode, const OptimizeResult& result) {
  HarnessRow row;
  row.model = model;
  row.batch = batch;
  row.mode = mode;
  row.cost_original_us = result.cost_original_us;
  row.cost_us = result.cost_optimized_us;
  row.search_seconds = result.search.seconds;
  row.stop_reason = to_string(result.search.stop_reason);
  row.transformations = static_cast<int>(result.transformations.size());
  std::vector<std::string> families;
  for (const Transformation& step : result.transformations) {
    ++row.by_evidence[step.evidence_kind];
    families.push_back(transformation_family(step.kind, step.name));
  }
  row.by_family = count_families(families);
  row.check_passed = result.check.passed;
  row.check_max_abs_error = result.check.max_abs_error();
  row.measured_run = measured_run_of(result);
  return row;
}

void run_model(HarnessTable& table, const std::string& model, int batch, const Graph& graph,
               const HarnessOptions& options, std::ostream& log) {
  for (Mode mode : options.modes) {
    OptimizeOptions pipeline = optimize_options(options, mode);
    if (options.verbose)
      pipeline.progress = [&log](const std::string& line) { log << "    " << line << "\n" << std::flush; };
    HarnessRow row;
    try {
      OptimizeResult result = optimize(graph, pipeline);
      note_device(table, result);
      row = summarize_run(model, batch, mode, result);
    } catch (const std::exception& error) {
      row.model = model;
      row.batch = batch;
      row.mode = mode;
      row.error = error.what();
      if (row.error.empty()) row.error = "unknown error";
    }
    table.rows.push_back(std::move(row));
    log << progress_line(table, table.rows.back()) << "\n" << std::flush;
  }
}

HarnessTable run_harness(const HarnessOptions& options, std::ostream& log,
                         const std::function<void(const HarnessTable&)>& after_model) {
  HarnessTable table;
  table.target = options.target;
  table.measured = runtime::is_measured_target(options.target);
  table.beam = options.beam;
  table.time_limit_s = options.time_limit_s;
  table.seed = options.seed;
  table.select_runs = options.select_runs;
  table.modes = options.modes;
  const std::vector<std::string>& models = options.models.empty() ? evaluation_models() : options.models;
  log << fmt::format("harness: {} models x {} batch sizes x {} modes from {}, target {}{}, seed {}\n",
                     models.size(), options.batches.size(), options.modes.size(), options.models_dir, options.target,
                     options.replay ? " (replayed)" : "", options.seed);
  for (const std::string& model : models) {
    for (int batch : options.batches) {
      std::string path = model_path(options.models_dir, model, batch);
      if (!std::filesystem::exists(path)) {
        table.skipped.push_back({model, batch, fmt::format("missing {} (scripts/harness.sh exports it)", path)});
        log << fmt::format("skipped {} b{}: missing {}\n", model, batch, path);
        continue;
      }
      Graph graph;
      try {
        graph = import_onnx(path);
      } catch (const std::exception& error) {
        table.skipped.push_back({model, batch, fmt::format("import failed: {}", error.what())});
        log << fmt::format("skipped {} b{}: import failed: {}\n", model, batch, error.what());
        continue;
      }
      run_model(table, model, batch, graph, options, log);
      if (after_model) after_model(table);
    }
  }
  return table;
}

std::vector<std::string> write_harness_outputs(const HarnessTable& table, const std::string& out_dir) {
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) throw UserError(fmt::format("cannot create the output folder '{}': {}", out_dir, error.message()));
  auto path = [&](const char* name) { return (std::filesystem::path(out_dir) / name).string(); };
  std::vector<std::string> written = {path("harness.md"), path("harness.csv"), path("cost.png"), path("speedup.png"),
                                      path("search_time.png")};
  write_text(written[0], harness_markdown(table));
  write_text(written[1], harness_csv(table));
  write_png(written[2], render_bar_chart(cost_chart(table)));
  write_png(written[3], render_bar_chart(speedup_chart(table)));
  write_png(written[4], render_bar_chart(search_time_chart(table)));
  return written;
}

}  // namespace pet::bench
