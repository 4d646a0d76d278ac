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

namespace pet::bench {
namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file) throw UserError(fmt::format("cannot write '{}'; check that its folder is writable", path));
}

std::string progress_line(const HarnessTable& table, const HarnessRow& row) {
  std::string head = fmt::format("[{}] {} b{} {}:", table.rows.size(), row.model, row.batch, row.mode);
  if (!row.error.empty()) return fmt::format("{} failed: {}", head, row.error);
  std::optional<double> gain = speedup(row.cost_original_us, row.cost_us);
  return fmt::format("{} {:.1f} us -> {:.1f} us ({:.3f}x), {} transformations, {}, {:.2f} s, check {}", head,
                     row.cost_original_us, row.cost_us, gain.value_or(0), row.transformations, row.stop_reason,
                     row.search_seconds, row.check_passed ? "passed" : "FAILED");
}

}  // namespace

const std::vector<std::string>& evaluation_models() {
  static const std::vector<std::string> models = {"resnet18",       "resnet50",  "inception_v3_299",
                                                  "inception_v3_330", "csrnet",  "csrnet_backend",
                                                  "bert_s128",      "bert_s512", "r3d_18"};
  return models;
}

const std::vector<std::string>& harness_modes() {
  static const std::vector<std::string> modes = {"none", "taso", "pet", "pet-eq-only", "pet-neq-only"};
  return modes;
}

std::string model_path(const std::string& models_dir, const std::string& model, int batch) {
  return (std::filesystem::path(models_dir) / fmt::format("{}_b{}", model, batch) / "model.onnx").string();
}

OptimizeOptions optimize_options(const HarnessOptions& options, const std::string& mode) {
  OptimizeOptions result;
  result.mode = mode;
  result.beam = options.beam;
  result.time_limit_s = options.time_limit_s;
  result.target = options.device;
  result.seed = options.seed;
  return result;
}

HarnessRow summarize_run(const std::string& model, int batch, const std::string& mode, const OptimizeResult& result) {
  HarnessRow row;
  row.model = model;
  row.batch = batch;
  row.mode = mode;
  row.cost_original_us = result.cost_original_us;
  row.cost_us = result.cost_optimized_us;
  row.search_seconds = result.search.seconds;
  row.stop_reason = result.search.stop_reason;
  row.transformations = static_cast<int>(result.transformations.size());
  std::vector<std::string> families;
  for (const Transformation& step : result.transformations) {
    ++row.by_evidence[step.evidence_kind];
    families.push_back(transformation_family(step.kind, step.name));
  }
  row.by_family = count_families(families);
  row.check_passed = result.check.passed;
  row.check_max_abs_error = result.check.max_abs_error();
  return row;
}

void run_model(HarnessTable& table, const std::string& model, int batch, const Graph& graph,
               const HarnessOptions& options, std::ostream& log) {
  for (const std::string& mode : options.modes) {
    OptimizeOptions pipeline = optimize_options(options, mode);
    if (options.verbose)
      pipeline.progress = [&log](const std::string& line) { log << "    " << line << "\n" << std::flush; };
    HarnessRow row;
    try {
      row = summarize_run(model, batch, mode, optimize(graph, pipeline));
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
  table.device = options.device;
  table.beam = options.beam;
  table.time_limit_s = options.time_limit_s;
  table.seed = options.seed;
  table.modes = options.modes;
  const std::vector<std::string>& models = options.models.empty() ? evaluation_models() : options.models;
  log << fmt::format("harness: {} models x {} batch sizes x {} modes from {}, seed {}\n", models.size(),
                     options.batches.size(), options.modes.size(), options.models_dir, options.seed);
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
