// pet-opt and pet-run on small models: outputs, reports and the README's help text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/onnx_tensor.h"
#include "core/text_ir.h"
#include "kernels/runtime/cpu_peak.h"
#include "search/measure/measured_selection.h"
#include "search/pipeline.h"
#include "tests/error/onnx_model_builder.h"
#include "tests/scoped_env.h"
#include "tools/commands.h"
#include "tools/help_text.h"
#include "tools/opt_flags.h"
#include "tools/written_check.h"

namespace pet::testing {
namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

std::string conv_bn_model() {
  Graph graph = parse_graph(R"(graph "convbn" opset 13 {
    input %x : f32[1,2,6,6]
    const %w : f32[4,2,3,3] = random(5)
    const %gamma : f32[4] = [1,2,-1,0.5]
    const %beta : f32[4] = [0,1,2,3]
    const %mean : f32[4] = [0.1,0.2,0.3,0.4]
    const %var : f32[4] = [1,0.5,0.25,2]
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
    %b = BatchNormalization[epsilon=0.001](%c, %gamma, %beta, %mean, %var)
    %d = Identity(%b)
    %y = Relu(%d)
    output %y
  })");
  std::string path = temp_file("convbn.onnx");
  export_onnx(graph, path);
  return path;
}

// A model pet writes unchanged reads back as the same graph, so its written-file check takes the
// original's outputs instead of running the same computation again (verifier/differential.h).
TEST(WrittenCheck, AnUnchangedModelReadsBackAsTheSameGraphAndIsNotRunAgain) {
  Graph original = import_onnx(conv_bn_model());
  std::string path = temp_file("convbn-unchanged.onnx");
  std::string bytes = serialize_onnx(original);
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_TRUE(same_graph(original, import_onnx(path)));
  WrittenCheck check = check_written_model(original, path, {});
  EXPECT_TRUE(check.passed);
  ASSERT_FALSE(check.draws.empty());
  for (const DifferentialReport& draw : check.draws) EXPECT_TRUE(draw.same_graph) << draw.summary();
  EXPECT_NE(written_check_summary(check).find("the same graph: not run again"), std::string::npos);
}

TEST(PetOpt, FoldsCleansExportsAndReports) {
  std::string model = conv_bn_model();
  std::string output = temp_file("convbn.opt.onnx");
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({"--beam", "8", "--target", "h100", model, "-o", output}, out, err), 0) << err.str();
  Graph before = import_onnx(model), after = import_onnx(output);
  EXPECT_EQ(before.nodes().size(), 4u);
  EXPECT_EQ(after.nodes().size(), 2u);  // Conv (BN folded) and Relu; Identity gone
  auto inputs = random_inputs(before, 3);
  Tensor expected = execute(before, inputs)[0];
  Tensor actual = execute(after, inputs)[0];
  for (size_t i = 0; i < expected.f32().size(); ++i) EXPECT_NEAR(actual.f32()[i], expected.f32()[i], 1e-4);

  std::ifstream report_file(temp_file("convbn.opt.json"));
  nlohmann::json report = nlohmann::json::parse(report_file);
  EXPECT_EQ(report["nodes_before"], 4);
  EXPECT_EQ(report["nodes_after"], 1);  // the Relu fused into the Conv; exported again as Conv, Relu
  EXPECT_EQ(report["differential_check"]["passed"], true);
  EXPECT_EQ(report["passes"][1]["pass"], "fold-batchnorm");
  EXPECT_EQ(report["passes"][1]["changes"], 1);
  EXPECT_NE(out.str().find("fold-batchnorm"), std::string::npos) << out.str();

  // The written file itself was imported again and checked on three draws before it was put in place.
  const nlohmann::json& written = report["written_check"];
  EXPECT_EQ(written["passed"], true);
  ASSERT_EQ(written["draws"].size(), 3u);
  for (int draw = 0; draw < 3; ++draw) {
    EXPECT_EQ(written["draws"][draw]["seed"], 2026 + draw);
    EXPECT_EQ(written["draws"][draw]["passed"], true);
  }
  EXPECT_FALSE(written.contains("runtime")) << "h100 is no runtime";
  EXPECT_NE(out.str().find("written file re-imported and checked: seed 2026 max abs error "), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("; seed 2028 max abs error "), std::string::npos) << out.str();
}

// ---- the final check of the written file, without a process ----

std::string relu_model_file(const std::string& name, const std::string& op) {
  Graph graph = parse_graph(fmt::format(R"(graph "g" opset 13 {{
    input %x : f32[2,8]
    %y = {}(%x)
    output %y
  }})",
                                        op));
  std::string path = temp_file(name);
  export_onnx(graph, path);
  return path;
}

TEST(WrittenCheck, AWrittenFileThatComputesSomethingElseFailsOnEveryDraw) {
  Graph original = import_onnx(relu_model_file("wc_relu.onnx", "Relu"));
  std::string other = relu_model_file("wc_abs.onnx", "Abs");
  WrittenCheckOptions options;
  options.seed = 7;
  WrittenCheck check = check_written_model(original, other, options);
  EXPECT_FALSE(check.passed);
  ASSERT_EQ(check.draws.size(), 3u);
  for (int draw = 0; draw < 3; ++draw) {
    EXPECT_EQ(check.draws[draw].seed, 7u + draw);
    EXPECT_FALSE(check.draws[draw].passed);
  }
  EXPECT_FALSE(check.runtime) << "the runtime is not asked once the file failed";
  std::string summary = written_check_summary(check);
  EXPECT_NE(summary.find("seed 7 max abs error "), std::string::npos) << summary;
  EXPECT_NE(summary.find("(FAILED)"), std::string::npos) << summary;
  EXPECT_EQ(written_check_json(check)["passed"], false);
}

TEST(WrittenCheck, AFileThatCannotBeImportedFails) {
  Graph original = import_onnx(relu_model_file("wc_relu2.onnx", "Relu"));
  std::string garbage = temp_file("wc_garbage.onnx");
  write_bytes(garbage, "not a model");
  WrittenCheck check = check_written_model(original, garbage, WrittenCheckOptions{});
  EXPECT_FALSE(check.passed);
  EXPECT_NE(check.import_error.find("is not a valid ONNX model"), std::string::npos) << check.import_error;
  EXPECT_EQ(written_check_summary(check).rfind("  written file: pet cannot import it again: ", 0), 0u);
}

TEST(WrittenCheck, ARuntimeRefusingTheWrittenBytesFailsTheCheck) {
  std::string path = relu_model_file("wc_refused.onnx", "Relu");
  Graph original = import_onnx(path);
  WrittenCheckOptions options;
  options.runtime_target = TargetSpec::parse("ort-cpu", 1);
  WrittenCheck check = check_written_model(original, path, options, "not a model");
  EXPECT_FALSE(check.passed);
  ASSERT_TRUE(check.runtime);
  EXPECT_EQ(check.runtime->rejected.rfind("model 0 was rejected by ONNX Runtime: ", 0), 0u) << check.runtime->rejected;
  EXPECT_NE(written_check_summary(check).find("the runtime refused it: model 0 was rejected"), std::string::npos);
}

TEST(WrittenCheck, AnUnavailableRuntimeIsSkippedAndSaysWhy) {
  std::string path = relu_model_file("wc_no_runtime.onnx", "Relu");
  Graph original = import_onnx(path);
  WrittenCheckOptions options;
  options.runtime_target = TargetSpec::parse("ort-cpu", 1);
  WrittenCheck check;
  {
    ScopedEnv python("PET_PYTHON", "/nonexistent/python3");
    check = check_written_model(original, path, options);
  }
  EXPECT_TRUE(check.passed) << "the file itself passed its three draws";
  ASSERT_TRUE(check.runtime);
  EXPECT_NE(check.runtime->unavailable.find("ONNX Runtime is not available"), std::string::npos)
      << check.runtime->unavailable;
  std::string summary = written_check_summary(check);
  EXPECT_NE(summary.find("  ort-cpu check skipped: ONNX Runtime is not available"), std::string::npos) << summary;
  EXPECT_EQ(written_check_json(check)["runtime"]["skipped"], check.runtime->unavailable);
}

TEST(WrittenCheck, AMeasuredTargetRunsTheWrittenFileInItsRuntime) {
  std::string path = relu_model_file("wc_runtime.onnx", "Relu");
  Graph original = import_onnx(path);
  WrittenCheckOptions options;
  options.runtime_target = TargetSpec::parse("ort-cpu", 1);
  WrittenCheck check = check_written_model(original, path, options);
  EXPECT_TRUE(check.passed);
  ASSERT_TRUE(check.runtime);
  EXPECT_EQ(check.runtime->unavailable, "");
  EXPECT_EQ(check.runtime->version.rfind("onnxruntime ", 0), 0u);
  EXPECT_TRUE(check.runtime->passed);
  EXPECT_EQ(check.runtime->max_abs_error(), 0.0) << "Relu is exact in every runtime";
  std::string summary = written_check_summary(check);
  EXPECT_NE(summary.find("written file in ort-cpu (onnxruntime "), std::string::npos) << summary;
}

TEST(PetOpt, SameInputGivesByteIdenticalOutputAndReport) {
  std::string model = conv_bn_model();
  auto bytes = [](const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  };
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({model, "--target", "h100", "-o", temp_file("det.onnx")}, out, err), 0);
  std::string first_model = bytes(temp_file("det.onnx")), first_report = bytes(temp_file("det.json"));
  ASSERT_EQ(pet_opt_main({model, "--target", "h100", "-o", temp_file("det.onnx")}, out, err), 0);
  EXPECT_EQ(bytes(temp_file("det.onnx")), first_model);
  EXPECT_EQ(bytes(temp_file("det.json")), first_report) << "wall-clock times belong behind --report-times";
}

// A measured target times the model in its runtime (nothing here asserts how long it took), then
// a replay of the DB it wrote times nothing and gives the same bytes every time.
void expect_measured_then_replayed(const std::string& target, const std::string& runtime_name) {
  std::string model = conv_bn_model();
  std::string db = temp_file(target + "-db.json");
  std::filesystem::remove(db);
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({model, "--target", target, "--threads", "1", "--profile-db", db, "--select-runs", "3", "-o",
                          temp_file(target + ".onnx")},
                         out, err),
            0)
      << err.str();
  EXPECT_NE(out.str().find("measured latency in " + runtime_name), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("written file in " + target + " (" + runtime_name), std::string::npos) << out.str();
  ASSERT_TRUE(std::filesystem::exists(db));
  std::string measured_model = file_bytes(temp_file(target + ".onnx"));
  nlohmann::json measured = nlohmann::json::parse(file_bytes(temp_file(target + ".json")));
  EXPECT_TRUE(measured["search"]["measured_ranking"]["on"].get<bool>()) << "a tiny model is cheap to time whole";
  EXPECT_GT(measured["search"]["measured_ranking"]["timed"].get<int>(), 0);
  // Whether the scales are fitted depends on how much of the run the profiler's rows name (timed), so
  // only that the run happened is asserted here; the replay below must reproduce the same scales.
  EXPECT_GT(measured["target"]["in_context"]["coverage"].get<double>(), 0) << measured["target"].dump();
  // The physical floor: the model's dense FLOPs at the CPU's peak, measured once into the DB.
  const bool has_fma = runtime::measure_cpu_peak(1, 1, 1000).isa != "none";
  ASSERT_EQ(measured["target"].contains("physical_floor"), has_fma) << measured["target"].dump();
  if (has_fma) {
    EXPECT_NE(out.str().find("  physical floor: "), std::string::npos) << out.str();
    EXPECT_FALSE(measured["target"]["physical_floor"]["peak_replayed"].get<bool>());
    EXPECT_GT(measured["target"]["physical_floor"]["input_fraction"].get<double>(), 0);
  }

  std::vector<std::string> replay = {model, "--target", target, "--threads", "1", "--profile-db", db, "--replay", "-o",
                                     temp_file(target + "-replay.onnx")};
  std::ostringstream replay_out, replay_err;
  ASSERT_EQ(pet_opt_main(replay, replay_out, replay_err), 0) << replay_err.str();
  std::string first_model = file_bytes(temp_file(target + "-replay.onnx"));
  std::string first_report = file_bytes(temp_file(target + "-replay.json"));
  std::string db_before = file_bytes(db);
  ASSERT_EQ(pet_opt_main(replay, replay_out, replay_err), 0);
  EXPECT_EQ(file_bytes(temp_file(target + "-replay.onnx")), first_model);
  EXPECT_EQ(file_bytes(temp_file(target + "-replay.json")), first_report);
  EXPECT_EQ(file_bytes(db), db_before) << "a replay never writes the DB";
  nlohmann::json report = nlohmann::json::parse(first_report);
  EXPECT_EQ(report["target"]["name"], target);
  EXPECT_EQ(report["target"]["selection"]["source"], "replayed");
  EXPECT_EQ(report["target"]["kernel_costs"]["measured"], 0);
  EXPECT_EQ(report["target"]["kernel_costs"]["estimated"], 0);
  EXPECT_GT(report["target"]["kernel_costs"]["replayed"].get<int>(), 0);
  // The replay ranks the beam and fits the scales from what the measured run recorded: the same model.
  EXPECT_EQ(first_model, measured_model) << "the replay chose what the measured run chose";
  EXPECT_EQ(report["search"]["measured_ranking"]["timed"], 0);
  EXPECT_GT(report["search"]["measured_ranking"]["replayed"].get<int>(), 0);
  EXPECT_EQ(report["target"]["in_context"], measured["target"]["in_context"]);
  if (has_fma) {
    EXPECT_TRUE(report["target"]["physical_floor"]["peak_replayed"].get<bool>()) << "the peak is replayed too";
    EXPECT_EQ(report["target"]["physical_floor"]["peak_gflops"], measured["target"]["physical_floor"]["peak_gflops"]);
    EXPECT_EQ(report["target"]["physical_floor"]["floor_us"], measured["target"]["physical_floor"]["floor_us"]);
    EXPECT_NE(replay_out.str().find("(from the profile DB)"), std::string::npos) << replay_out.str();
  }
}

// Before: "the input is written unchanged" wrote pet's own serialisation of the input graph. After:
// when the measured selection keeps the input, the written file is the input's own bytes.
TEST(PetOpt, KeepingTheInputWritesTheInputsOwnBytes) {
  // Written by another tool (onnx's builder, not pet's exporter), with an Identity cleanup removes.
  OnnxModelBuilder builder;
  builder.input("x", onnx::TensorProto::FLOAT, {1, 8}).output("y", onnx::TensorProto::FLOAT, {1, 8});
  builder.float_initializer("w", {8, 8}, std::vector<float>(64, 0.125f));
  builder.node("MatMul", {"x", "w"}, {"m"}, "product");
  builder.node("Identity", {"m"}, {"i"}, "copy");
  builder.node("Relu", {"i"}, {"y"}, "relu");
  std::string model = builder.save("keep_input.onnx");
  ASSERT_NE(serialize_onnx(import_onnx(model)), file_bytes(model)) << "pet's own serialisation differs from the file";
  std::string db = temp_file("keep-input-db.json");
  std::filesystem::remove(db);
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({model, "--target", "ort-cpu", "--threads", "1", "--profile-db", db, "--select-runs", "3",
                          "-o", temp_file("keep-measured.onnx")},
                         out, err),
            0)
      << err.str();
  // The recorded end-to-end times edited so that the input is by far the fastest candidate.
  const std::string input_key = model_key(import_onnx(model));
  cost::ProfileDb edited;
  bool recorded = false;
  for (cost::ProfileEntry entry : cost::ProfileDb::load(db).entries()) {
    if (entry.key.rfind("model ", 0) == 0) {
      recorded = recorded || entry.key == input_key;
      entry.microseconds = entry.key == input_key ? 1 : 1000;
      entry.spread_us = 0;
    }
    edited.add(entry);
  }
  ASSERT_TRUE(recorded) << "the measured run recorded the input's end-to-end time";
  edited.save(db);
  std::string written = temp_file("keep-replayed.onnx");
  std::ostringstream replay_out, replay_err;
  ASSERT_EQ(pet_opt_main({model, "--target", "ort-cpu", "--threads", "1", "--profile-db", db, "--replay", "-o",
                          written},
                         replay_out, replay_err),
            0)
      << replay_err.str();
  EXPECT_NE(replay_out.str().find("chose input"), std::string::npos) << replay_out.str();
  EXPECT_EQ(file_bytes(written), file_bytes(model)) << "the input's own bytes";
  EXPECT_NE(replay_out.str().find("the same graph: not run again"), std::string::npos) << replay_out.str();
}

TEST(PetOpt, OrtCpuMeasuresThenReplaysByteIdentically) { expect_measured_then_replayed("ort-cpu", "onnxruntime"); }

TEST(PetOpt, OpenVinoCpuMeasuresThenReplaysByteIdentically) {
  expect_measured_then_replayed("openvino-cpu", "openvino");
}

// A DB whose times are a thousand times too slow (as if recorded under heavy load): --remeasure
// prices with none of them, times everything again and saves the new times over them.
TEST(PetOpt, RemeasureTimesEverythingAgainAndSavesOverTheDb) {
  std::string model = conv_bn_model();
  std::string db = temp_file("remeasure-db.json");
  std::filesystem::remove(db);
  std::vector<std::string> run = {model, "--target", "ort-cpu", "--threads", "1", "--profile-db", db,
                                   "--select-runs", "3", "--measured-search", "0", "-o", temp_file("remeasure.onnx")};
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main(run, out, err), 0) << err.str();
  cost::ProfileDb slowed;
  for (cost::ProfileEntry entry : cost::ProfileDb::load(db).entries()) {
    entry.microseconds *= 1000;
    slowed.add(entry);
  }
  slowed.save(db);

  run.push_back("--remeasure");
  std::ostringstream again_out, again_err;
  ASSERT_EQ(pet_opt_main(run, again_out, again_err), 0) << again_err.str();

  nlohmann::json report = nlohmann::json::parse(file_bytes(temp_file("remeasure.json")));
  const int measured = report["target"]["kernel_costs"]["measured"].get<int>();
  EXPECT_EQ(report["target"]["kernel_costs"]["replayed"].get<int>(), 0) << report["target"].dump();
  EXPECT_GT(measured, 0);
  // Every group it priced, the input's end-to-end time and the rest it timed replace the stored
  // times; entries this run did not need (a program the first run timed and this one did not
  // reach: the new times can change the finalists) stay as they were.
  const std::string input_key = model_key(import_onnx(model));
  cost::ProfileDb after = cost::ProfileDb::load(db);
  ASSERT_NE(slowed.find(after.entries().front().device, input_key), nullptr) << "the first run timed the input";
  int replaced = 0;
  for (const cost::ProfileEntry& stale : slowed.entries()) {
    const cost::ProfileEntry* now = after.find(stale.device, stale.key);
    ASSERT_NE(now, nullptr) << "nothing is dropped: " << stale.key;
    EXPECT_LE(now->microseconds, stale.microseconds) << stale.key;
    if (now->microseconds < stale.microseconds) ++replaced;
    if (stale.key == input_key) {
      EXPECT_LT(now->microseconds, stale.microseconds) << "the input was timed again";
    }
  }
  EXPECT_GE(replaced, measured) << "at least every kernel group priced was timed again";
}

TEST(PetOpt, RemeasureWithReplayOrAnEstimatedTargetIsAUserError) {
  std::string db = temp_file("remeasure-replay-db.json");
  std::ofstream(db) << "{\"entries\": []}\n";
  std::ostringstream out, err;
  EXPECT_EQ(
      pet_opt_main({conv_bn_model(), "--target", "ort-cpu", "--profile-db", db, "--replay", "--remeasure"}, out, err), 2);
  EXPECT_EQ(err.str(),
            "pet-opt: error: --remeasure times everything again and --replay times nothing: pass one of them\n");
  std::ostringstream a100_out, a100_err;
  EXPECT_EQ(pet_opt_main({conv_bn_model(), "--target", "a100", "--remeasure"}, a100_out, a100_err), 2);
  EXPECT_EQ(a100_err.str(),
            "pet-opt: error: --remeasure: target a100 is estimated, so nothing is timed; it applies to the measured "
            "targets ort-cpu and openvino-cpu\n");
  std::ostringstream h100_out, h100_err;
  EXPECT_EQ(pet_opt_main({conv_bn_model(), "--target", "h100", "--remeasure"}, h100_out, h100_err), 2);
  EXPECT_EQ(h100_err.str(),
            "pet-opt: error: --remeasure: target h100 is timed on a GPU machine, not here; on a machine with that card "
            "add --live, elsewhere export what its profile DB lacks with --export-misses FILE, time it there with "
            "pet-gpu measure FILE and import the results with pet-profile --import\n");
}

TEST(PetOpt, ReplayingADbWithoutTheTargetSaysHowToMeasureIt) {
  std::string db = temp_file("empty-db.json");
  {
    std::ofstream file(db);
    file << "{\"entries\": []}\n";
  }
  std::ostringstream out, err;
  EXPECT_EQ(pet_opt_main({conv_bn_model(), "--target", "ort-cpu", "--threads", "1", "--profile-db", db, "--replay"},
                         out, err),
            2);
  EXPECT_EQ(err.str(), "pet-opt: error: --replay: the profile DB '" + db +
                           "' holds no ort-cpu times at 1 thread; run once without --replay to measure them, or pass "
                           "--threads with a recorded count\n");
}

TEST(PetRun, WritesOutputsNamedAfterGraphOutputs) {
  std::string model = conv_bn_model();
  std::string input = temp_file("run_input.pb");
  Tensor x = Tensor::random_f32({1, 2, 6, 6}, 9);
  write_tensor_file(input, x, "x");
  std::string dir = temp_file("run_outputs");
  std::ostringstream out, err;
  ASSERT_EQ(pet_run_main({model, "--input", "x=" + input, "--output-dir", dir, "--repeat", "3"}, out, err), 0) << err.str();
  Tensor written = read_tensor_file(dir + "/y.pb");
  EXPECT_TRUE(written.same_content(execute(import_onnx(model), {x})[0]));
  EXPECT_NE(out.str().find("cpu median latency"), std::string::npos);
  EXPECT_NE(out.str().find("over 3 run(s)"), std::string::npos);
}

std::string readme() {
  std::ifstream file(std::string(PET_SOURCE_DIR) + "/README.md");
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

TEST(Docs, ReadmeQuotesTheHelpTextsVerbatim) {
  std::string text = readme();
  EXPECT_NE(text.find(pet_opt_help()), std::string::npos) << "README.md must contain pet-opt --help verbatim";
  EXPECT_NE(text.find(kPetRunHelp), std::string::npos) << "README.md must contain pet-run --help verbatim";
}

TEST(Docs, ReadmeIsAFrontDoorOfAtMostTwoHundredLines) {
  std::string text = readme();
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 200) << "dated findings go to bench/results/README.md, mechanics to docs/";
}

TEST(Docs, PetOptHelpStatesThePipelinesDefaults) {
  // The flags take their defaults from OptimizeOptions; the help text writes them out.
  const OptimizeOptions defaults;
  std::string help = pet_opt_help();
  for (const std::string& stated :
       {fmt::format("(default {})", defaults.search.beam), fmt::format("(default {};", defaults.search.limits.time_limit_s),
        fmt::format("(default {})", defaults.search.limits.max_expansions), fmt::format("(default {})", defaults.search.limits.max_candidates),
        fmt::format("(default {})", defaults.generate.work.value()), fmt::format("(default {})", defaults.search.limits.max_work),
        fmt::format("(default {})", defaults.space.scored_per_expansion), fmt::format("(default {},", defaults.space.stage_sites),
        fmt::format("(default {})", defaults.generate.mutation_rounds),
        fmt::format("(default {})", defaults.generate.top_k), fmt::format("(default {})", defaults.target.spec.name()), fmt::format("(default {})", defaults.select.count),
        fmt::format("(default {})", defaults.select.runs), fmt::format("(default {})", defaults.search.measured_s),
        fmt::format("(default {})", defaults.seed), fmt::format("(default {})", to_string(defaults.search.taso_search)),
        fmt::format("best ({})", defaults.search.alpha)})
    EXPECT_NE(help.find(stated), std::string::npos) << stated;
}

// The flag table is the one declaration: --help prints it, the parser accepts exactly its flags,
// and `pet-opt --help` is what the table builds.
TEST(OptFlags, HelpListsEveryFlagOfTheTableInItsOrder) {
  std::string help = pet_opt_help();
  size_t at = 0;
  for (const OptFlag& flag : opt_flags()) {
    std::string spelled = "  " + (flag.alias.empty() ? flag.name : flag.alias + ", " + flag.name);
    size_t found = help.find(spelled, at);
    ASSERT_NE(found, std::string::npos) << flag.name << " is missing from --help, or out of the table's order";
    at = found;
  }
}

TEST(OptFlags, TheParserAcceptsEveryFlagOfTheTableAndNothingElse) {
  for (const OptFlag& flag : opt_flags()) {
    std::vector<std::string> args = {flag.name};
    if (!flag.value.empty()) args.push_back("1");
    EXPECT_NO_THROW(parse_opt_args(args)) << flag.name;
    if (!flag.alias.empty()) {
      EXPECT_TRUE(parse_opt_args({flag.alias, flag.value.empty() ? "m.onnx" : "1"}).has(flag.alias));
    }
  }
  std::ostringstream out, err;
  EXPECT_EQ(pet_opt_main({"--beams", "4", "m.onnx"}, out, err), 2);
  EXPECT_NE(err.str().find("--beams"), std::string::npos) << err.str();
}

TEST(OptFlags, PetOptHelpPrintsTheTablesHelp) {
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({"--help"}, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), pet_opt_help());
}

TEST(OptFlags, EveryDefaultTheHelpStatesIsReadFromTheOptions) {
  for (const OptFlag& flag : opt_flags())
    for (const std::string& line : flag.help)
      if (line.find("{default}") != std::string::npos) {
        EXPECT_TRUE(static_cast<bool>(flag.default_text)) << flag.name << " states a default it does not read";
      }
  EXPECT_EQ(pet_opt_help().find("{default}"), std::string::npos);
}

}  // namespace
}  // namespace pet::testing
