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

HarnessOptions quick_options() {
  HarnessOptions options;
  options.modes = {"none", "pet"};
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
  EXPECT_EQ(none.mode, "none");
  EXPECT_EQ(none.stop_reason, "no-search");
  EXPECT_EQ(none.transformations, 0);
  EXPECT_DOUBLE_EQ(none.cost_us, none.cost_original_us);
  EXPECT_EQ(pet.mode, "pet");
  EXPECT_LE(pet.cost_us, none.cost_us);
  EXPECT_FALSE(pet.stop_reason.empty());
  EXPECT_NE(log.str().find("[1] parallel b1 none:"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("[2] parallel b1 pet:"), std::string::npos) << log.str();

  std::ostringstream ignored;
  run_model(again, "parallel", 1, graph, quick_options(), ignored);
  EXPECT_EQ(without_times(table), without_times(again)) << "the harness must be deterministic but for times";
}

TEST(HarnessRun, WritesTheReportFiles) {
  HarnessTable table;
  table.device = "h100";
  table.modes = {"none"};
  std::ostringstream log;
  HarnessOptions options = quick_options();
  options.modes = {"none"};
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
                             "--time-limit", "20", "--out", out.string()},
                            models.string(), log, err);
  EXPECT_EQ(status, 0) << log.str() << err.str();
  EXPECT_NE(log.str().find("[1] parallel b1 none:"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("[2] parallel b1 taso:"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("skipped absent b1: missing "), std::string::npos) << log.str();
  std::string markdown = read_file(out / "harness.md");
  EXPECT_NE(markdown.find("| parallel | 1 | none | "), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| parallel | 1 | taso | "), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("- absent batch 1: missing "), std::string::npos) << markdown;
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
  EXPECT_EQ(options.modes, harness_modes());
  EXPECT_EQ(options.beam, 8);
  EXPECT_EQ(options.out_dir, "build/harness");
  EXPECT_EQ(options.device, "h100");
}

TEST(HarnessCli, Flags) {
  HarnessOptions options =
      parse_harness_args({"--models", "resnet18,bert_s128", "--batches=16", "--modes", "taso,pet", "--beam", "4",
                          "--time-limit", "2.5", "--out", "o", "--seed", "7", "--models-dir", "m", "--verbose"},
                         "/models");
  EXPECT_EQ(options.models, (std::vector<std::string>{"resnet18", "bert_s128"}));
  EXPECT_EQ(options.batches, (std::vector<int>{16}));
  EXPECT_EQ(options.modes, (std::vector<std::string>{"taso", "pet"}));
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
}

TEST(HarnessCli, HelpAndUserErrorExitCodes) {
  std::ostringstream out, err;
  EXPECT_EQ(harness_main({"--help"}, "/models", out, err), 0);
  EXPECT_EQ(out.str(), kHarnessHelp);
  EXPECT_EQ(harness_main({"--beam", "0"}, "/models", out, err), 2);
  EXPECT_NE(err.str().find("pet_harness: --beam '0' must be an integer from 1 to"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace pet::bench
