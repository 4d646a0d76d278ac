// The harness in-process: flags, a tiny graph in none and pet, the files it writes, and
// resnet18_b1 end to end when exported (PET_MODELS_DIR).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/harness_cli.h"
#include "core/error.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "tests/test_temp_dir.h"

namespace pet::bench {
namespace {

// Two convolutions reading one input: a search has something to merge.
const char* kParallelConvs = R"(graph "parallel" opset 13 {
  input %x : f32[1,16,14,14]
  const %w1 : f32[16,16,3,3] = random(1)
  const %w2 : f32[16,16,3,3] = random(2)
  %a = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1) : f32[1,16,14,14]
  %b = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w2) : f32[1,16,14,14]
  %ra = Relu(%a) : f32[1,16,14,14]
  %rb = Relu(%b) : f32[1,16,14,14]
  output %ra
  output %rb
}
)";

// Tests never time anything: every run here prices with the analytic h100 model.
HarnessOptions quick_options() {
  HarnessOptions options;
  options.target = "h100";
  options.modes = {Mode::none, Mode::pet};
  options.beam = 2;
  options.time_limit_s = 20;
  return options;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Everything but the wall-clock column, for determinism checks.
std::string without_times(HarnessTable table) {
  for (HarnessRow& row : table.rows) row.search_seconds = 0;
  return harness_csv(table);
}

void expect_consistent(const HarnessRow& row) {
  EXPECT_TRUE(row.error.empty()) << row.mode << ": " << row.error;
  int by_evidence = 0, by_family = 0;
  for (const auto& [kind, count] : row.by_evidence) {
    EXPECT_NE(std::find(evidence_kinds().begin(), evidence_kinds().end(), kind), evidence_kinds().end()) << kind;
    by_evidence += count;
  }
  for (const auto& [family, count] : row.by_family) by_family += count;
  EXPECT_EQ(by_evidence, row.transformations) << row.mode;
  EXPECT_EQ(by_family, row.transformations) << row.mode;
  EXPECT_TRUE(row.check_passed) << row.mode << " max error " << row.check_max_abs_error;
  EXPECT_GT(row.cost_us, 0) << row.mode;
}

TEST(HarnessRun, TinyGraphInNoneAndPet) {
  Graph graph = parse_graph(kParallelConvs);
  HarnessTable table, again;
  std::ostringstream log;
  run_model(table, "parallel", 1, graph, quick_options(), log);
  ASSERT_EQ(table.rows.size(), 2u);
  const HarnessRow& none = table.rows[0];
  const HarnessRow& pet = table.rows[1];
  expect_consistent(none);
  expect_consistent(pet);
  EXPECT_EQ(none.mode, Mode::none);
  EXPECT_EQ(none.stop_reason, "no-search");
  EXPECT_EQ(none.transformations, 0);
  EXPECT_DOUBLE_EQ(none.cost_us, none.cost_original_us);
  EXPECT_EQ(pet.mode, Mode::pet);
  EXPECT_LE(pet.cost_us, none.cost_us);
  EXPECT_FALSE(pet.stop_reason.empty());
  EXPECT_NE(log.str().find("[1] parallel b1 none:"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("[2] parallel b1 pet:"), std::string::npos) << log.str();
  EXPECT_FALSE(none.measured_run) << "an estimated target has no end-to-end times";
  EXPECT_FALSE(pet.measured_run);
  EXPECT_EQ(table.device, "h100 (estimated)");
  EXPECT_FALSE(table.measured);

  std::ostringstream ignored;
  run_model(again, "parallel", 1, graph, quick_options(), ignored);
  EXPECT_EQ(without_times(table), without_times(again)) << "the harness must be deterministic but for times";
}

// A measured target's result as the pipeline returns it, built by hand: nothing is timed.
OptimizeResult measured_result() {
  OptimizeResult result;
  result.cost_original_us = 950;
  result.cost_optimized_us = 700;
  result.search.stop_reason = StopReason::converged;
  result.search.seconds = 12.5;
  result.device = "ort-cpu (onnxruntime 1.32.0, 1 thread, AMD EPYC)";
  result.target.target = {"ort-cpu", true, 1, "onnxruntime 1.32.0", "AMD EPYC"};
  result.target.sources = {30, 12, 1, 20.25};
  result.target.selection.source = "measured";
  result.target.selection.candidates = {{"input", 1000, 1210, 12, 10, ""},
                                        {"cleaned", 950, 1160, 11, 10, ""},
                                        {"program 1", 700, 880, 9.5, 10, ""},
                                        {"program 2", 720, 900, 9, 10, ""}};
  result.target.selection.chosen = 2;
  result.target.calibration_error = 950.0 / 1160 - 1;
  result.target.calibrated = true;
  return result;
}

TEST(HarnessRun, SummarizesAMeasuredSelection) {
  HarnessRow row = summarize_run("resnet18", 1, Mode::pet, measured_result());
  ASSERT_TRUE(row.measured_run);
  const MeasuredRun& run = *row.measured_run;
  EXPECT_EQ(run.source, "measured");
  EXPECT_EQ(run.chosen, "program 1");
  EXPECT_DOUBLE_EQ(run.input.median_us, 1210);
  EXPECT_DOUBLE_EQ(run.input.spread_us, 12);
  EXPECT_DOUBLE_EQ(run.input.predicted_us, 1000);
  EXPECT_DOUBLE_EQ(run.written.median_us, 880);
  EXPECT_DOUBLE_EQ(run.written.spread_us, 9.5);
  EXPECT_DOUBLE_EQ(run.written.predicted_us, 700);
  EXPECT_DOUBLE_EQ(*run.calibration_error, 950.0 / 1160 - 1);
  EXPECT_EQ(run.kernels_measured, 30);
  EXPECT_EQ(run.kernels_replayed, 12);
  EXPECT_EQ(run.kernels_estimated, 1);
  EXPECT_DOUBLE_EQ(run.measuring_seconds, 20.25);
  EXPECT_DOUBLE_EQ(*measured_speedup(row), 1210.0 / 880);

  OptimizeResult uncalibrated = measured_result();
  uncalibrated.target.calibrated = false;
  EXPECT_FALSE(summarize_run("resnet18", 1, Mode::pet, uncalibrated).measured_run->calibration_error);
  OptimizeResult estimated;  // an analytic target: no selection
  EXPECT_FALSE(summarize_run("resnet18", 1, Mode::pet, estimated).measured_run);
}

TEST(HarnessRun, ProgressLineOfAMeasuredRun) {
  HarnessTable table;
  table.rows.push_back(summarize_run("resnet18", 1, Mode::pet, measured_result()));
  EXPECT_EQ(progress_line(table, table.rows.back()),
            "[1] resnet18 b1 pet: measured: 1210.0 us -> 880.0 us (1.375x, chose program 1), predicted 1.429x, "
            "0 transformations, converged, 12.50 s, check passed");

  OptimizeResult replayed = measured_result();
  replayed.target.selection.source = "replayed";
  table.rows.back() = summarize_run("resnet18", 1, Mode::pet, replayed);
  EXPECT_EQ(progress_line(table, table.rows.back()).substr(0, 50),
            "[1] resnet18 b1 pet: replayed: 1210.0 us -> 880.0 ");

  OptimizeResult by_prediction = measured_result();
  by_prediction.target.selection.source = "estimated";
  for (TimedCandidate& candidate : by_prediction.target.selection.candidates) candidate.median_us = 0;
  table.rows.back() = summarize_run("resnet18", 1, Mode::pet, by_prediction);
  EXPECT_EQ(progress_line(table, table.rows.back()),
            "[1] resnet18 b1 pet: 950.0 us -> 700.0 us (1.357x, chose program 1 by prediction), 0 transformations, "
            "converged, 12.50 s, check passed");
}

TEST(HarnessRun, WritesTheReportFiles) {
  HarnessTable table;
  table.target = "h100";
  table.modes = {Mode::none};
  std::ostringstream log;
  HarnessOptions options = quick_options();
  options.modes = {Mode::none};
  run_model(table, "parallel", 1, parse_graph(kParallelConvs), options, log);
  std::filesystem::path out = pet::testing::private_temp_dir() / "harness-files";
  std::vector<std::string> written = write_harness_outputs(table, out.string());
  ASSERT_EQ(written.size(), 5u);
  for (const std::string& path : written) EXPECT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_EQ(read_file(out / "harness.md"), harness_markdown(table));
  EXPECT_EQ(read_file(out / "harness.csv"), harness_csv(table));
  for (const char* chart : {"cost.png", "speedup.png", "search_time.png"})
    EXPECT_EQ(read_file(out / chart).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << chart;
}

TEST(HarnessRun, MissingModelsAreSkippedAndListed) {
  HarnessOptions options = quick_options();
  options.models_dir = (pet::testing::private_temp_dir() / "no-models").string();
  options.models = {"resnet18"};
  options.batches = {1, 16};
  std::ostringstream log;
  HarnessTable table = run_harness(options, log);
  EXPECT_TRUE(table.rows.empty());
  ASSERT_EQ(table.skipped.size(), 2u);
  EXPECT_EQ(table.skipped[1].batch, 16);
  EXPECT_EQ(table.skipped[1].reason,
            "missing " + model_path(options.models_dir, "resnet18", 16) + " (scripts/harness.sh exports it)");
  EXPECT_NE(harness_markdown(table).find("## Skipped\n\n- resnet18 batch 1: missing "), std::string::npos);
}

// The tool in-process on a model file: progress lines, report files, exit status.
TEST(HarnessRun, MainRunsAModelFileAndWritesTheReport) {
  std::filesystem::path root = pet::testing::private_temp_dir() / "harness-main";
  std::filesystem::path models = root / "models", out = root / "out";
  std::filesystem::create_directories(models / "parallel_b1");
  export_onnx(parse_graph(kParallelConvs), (models / "parallel_b1" / "model.onnx").string());
  std::ostringstream log, err;
  int status = harness_main({"--models", "parallel,absent", "--batches", "1", "--modes", "none,taso", "--beam", "2",
                             "--time-limit", "20", "--target", "h100", "--out", out.string()},
                            models.string(), log, err);
  EXPECT_EQ(status, 0) << log.str() << err.str();
  EXPECT_NE(log.str().find("[1] parallel b1 none:"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("[2] parallel b1 taso:"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("skipped absent b1: missing "), std::string::npos) << log.str();
  std::string markdown = read_file(out / "harness.md");
  EXPECT_NE(markdown.find("| parallel | 1 | none | "), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| parallel | 1 | taso | "), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("- absent batch 1: missing "), std::string::npos) << markdown;
  EXPECT_EQ(markdown.substr(0, 33), "# pet harness: h100 (estimated)\n\n");
  EXPECT_EQ(read_file(out / "harness.csv").substr(0, 11), "model,batch");
  EXPECT_TRUE(std::filesystem::exists(out / "speedup.png"));
}

TEST(HarnessRun, Resnet18EndToEnd) {
  const char* dir = std::getenv("PET_MODELS_DIR");
  if (!dir || !std::filesystem::exists(model_path(dir, "resnet18", 1)))
    GTEST_SKIP() << "resnet18_b1 is not exported; set PET_MODELS_DIR (ctest does)";
  HarnessOptions options = quick_options();
  options.models_dir = dir;
  options.models = {"resnet18"};
  options.batches = {1};
  options.time_limit_s = 15;
  std::ostringstream log;
  int reports = 0;
  HarnessTable table = run_harness(options, log, [&](const HarnessTable& so_far) {
    ++reports;
    EXPECT_EQ(so_far.rows.size(), 2u);
  });
  EXPECT_EQ(reports, 1) << "one report update per model and batch";
  ASSERT_EQ(table.rows.size(), 2u) << log.str();
  for (const HarnessRow& row : table.rows) expect_consistent(row);
  EXPECT_LE(table.rows[1].cost_us, table.rows[0].cost_us);
  EXPECT_TRUE(table.skipped.empty());
}

TEST(HarnessCli, Defaults) {
  HarnessOptions options = parse_harness_args({}, "/models");
  EXPECT_EQ(options.models_dir, "/models");
  EXPECT_TRUE(options.models.empty());
  EXPECT_EQ(options.batches, (std::vector<int>{1, 16}));
  EXPECT_EQ(options.modes, all_modes());
  EXPECT_EQ(options.beam, 8);
  EXPECT_EQ(options.out_dir, "build/harness");
  EXPECT_EQ(options.target, OptimizeOptions{}.target);
  EXPECT_EQ(options.runtime_threads, 0) << "all cores";
  EXPECT_EQ(options.profile_db, "");
  EXPECT_FALSE(options.replay);
  EXPECT_EQ(options.select_runs, OptimizeOptions{}.select_runs);
}

TEST(HarnessCli, TargetFlags) {
  HarnessOptions options = parse_harness_args(
      {"--target", "ort-cpu", "--threads", "4", "--profile-db", "db.json", "--replay", "--select-runs=3"}, "/models");
  EXPECT_EQ(options.target, "ort-cpu");
  EXPECT_EQ(options.runtime_threads, 4);
  EXPECT_EQ(options.profile_db, "db.json");
  EXPECT_TRUE(options.replay);
  EXPECT_EQ(options.select_runs, 3);
  EXPECT_EQ(parse_harness_args({"--target", "h100"}, "/models").target, "h100");
  EXPECT_EQ(parse_harness_args({"--target", "openvino-cpu"}, "/models").target, "openvino-cpu");
}

TEST(HarnessCli, TargetFlagsReachThePipeline) {
  HarnessOptions options = parse_harness_args(
      {"--target", "ort-cpu", "--threads", "2", "--profile-db", "db.json", "--replay", "--select-runs", "5",
       "--beam", "3", "--seed", "9"},
      "/models");
  OptimizeOptions pipeline = optimize_options(options, Mode::taso);
  EXPECT_EQ(pipeline.mode, Mode::taso);
  EXPECT_EQ(pipeline.target, "ort-cpu");
  EXPECT_EQ(pipeline.runtime_threads, 2);
  EXPECT_EQ(pipeline.profile_db, "db.json");
  EXPECT_TRUE(pipeline.replay);
  EXPECT_EQ(pipeline.select_runs, 5);
  EXPECT_EQ(pipeline.beam, 3);
  EXPECT_EQ(pipeline.seed, 9u);
}

TEST(HarnessCli, Flags) {
  HarnessOptions options =
      parse_harness_args({"--models", "resnet18,bert_s128", "--batches=16", "--modes", "taso,pet", "--beam", "4",
                          "--time-limit", "2.5", "--out", "o", "--seed", "7", "--models-dir", "m", "--verbose"},
                         "/models");
  EXPECT_EQ(options.models, (std::vector<std::string>{"resnet18", "bert_s128"}));
  EXPECT_EQ(options.batches, (std::vector<int>{16}));
  EXPECT_EQ(options.modes, (std::vector<Mode>{Mode::taso, Mode::pet}));
  EXPECT_EQ(options.beam, 4);
  EXPECT_DOUBLE_EQ(options.time_limit_s, 2.5);
  EXPECT_EQ(options.out_dir, "o");
  EXPECT_EQ(options.seed, 7u);
  EXPECT_EQ(options.models_dir, "m");
  EXPECT_TRUE(options.verbose);
}

std::string user_error(const std::vector<std::string>& args) {
  try {
    parse_harness_args(args, "/models");
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(HarnessCli, BadFlagsSayWhatIsWrong) {
  EXPECT_EQ(user_error({"--modes", "pet,fast"}),
            "--modes: 'fast' is not one of none, taso, pet, pet-eq-only, pet-neq-only");
  EXPECT_EQ(user_error({"--batches", "1,x"}), "--batches '1,x': 'x' is not a batch size (an integer >= 1)");
  EXPECT_EQ(user_error({"--batches", "0"}), "--batches '0': '0' is not a batch size (an integer >= 1)");
  EXPECT_EQ(user_error({"--models", "a,,b"}), "--models 'a,,b' has an empty entry; separate names with single commas");
  EXPECT_EQ(user_error({"--time-limit", "0"}), "--time-limit 0 must be a positive number of seconds");
  EXPECT_EQ(user_error({"--fast"}), "unknown flag '--fast'; see pet_harness --help");
  EXPECT_EQ(user_error({"model.onnx"}), "unexpected argument 'model.onnx'; see pet_harness --help");
  EXPECT_EQ(user_error({"--target", "tpu"}),
            "--target 'tpu' is not a target: pass ort-cpu, openvino-cpu (measured on this machine), a100, h100, "
            "v100 (estimated), or the path of a device spec JSON file");
  EXPECT_EQ(user_error({"--device", "h100"}), "unknown flag '--device'; see pet_harness --help");
  EXPECT_EQ(user_error({"--threads", "0"}), "--threads '0' must be an integer from 1 to 1024");
  EXPECT_EQ(user_error({"--select-runs", "0"}), "--select-runs '0' must be an integer from 1 to 10000");
}

TEST(HarnessCli, HelpAndUserErrorExitCodes) {
  std::ostringstream out, err;
  EXPECT_EQ(harness_main({"--help"}, "/models", out, err), 0);
  EXPECT_EQ(out.str(), kHarnessHelp);
  std::string help = kHarnessHelp;
  EXPECT_NE(help.find("(default " + OptimizeOptions{}.target + ")"), std::string::npos) << "--target's default";
  EXPECT_EQ(harness_main({"--beam", "0"}, "/models", out, err), 2);
  EXPECT_NE(err.str().find("pet_harness: --beam '0' must be an integer from 1 to"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace pet::bench
