// The GPU targets' offline loop without a GPU: pet-opt --export-misses, the request runner behind a
// fake pet-gpu, pet-profile --import, and pet-opt --replay on what was imported.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/file_safety.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/text_ir.h"
#include "kernels/runtime/gpu_kernels_version.h"
#include "kernels/runtime/request_runner.h"
#include "kernels/runtime/timing_request.h"
#include "search/cost/cost_model.h"
#include "search/cost/in_context.h"
#include "tests/kernels/runtime/fake_gpu_runtime.h"
#include "tests/scoped_env.h"
#include "tests/test_temp_dir.h"
#include "tools/commands.h"
#include "tools/profile_command.h"

namespace pet::testing {
namespace {

namespace fs = std::filesystem;

struct Ran {
  int status = 0;
  std::string out, err;
};

Ran pet_opt(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = pet_opt_main(args, out, err);
  return {status, out.str(), err.str()};
}

Ran pet_profile(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = pet_profile_main(args, out, err);
  return {status, out.str(), err.str()};
}

fs::path folder(const std::string& name) {
  fs::path path = private_temp_dir() / name;
  fs::create_directories(path);
  return path;
}

std::string write(const fs::path& path, const std::string& text) {
  write_file_atomically(path.string(), text, "a test file");
  return path.string();
}

// Two 1x1 convs of one input, each with its ReLU, added: TASO merges the convs.
const char* kTwoConvs = R"(graph "two_convs" opset 13 {
  input %x : f32[1,16,8,8]
  const %w1 : f32[16,16,1,1] = random(1)
  const %w2 : f32[16,16,1,1] = random(2)
  %c1 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w1) : f32[1,16,8,8]
  %c2 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w2) : f32[1,16,8,8]
  %r1 = Relu(%c1) : f32[1,16,8,8]
  %r2 = Relu(%c2) : f32[1,16,8,8]
  %y = Add(%r1, %r2) : f32[1,16,8,8]
  output %y
})";

const std::string kDevice = "h100 | fake pet-gpu tf32 math (a test double), " + runtime::gpu_kernels_tag() +
                            " | NVIDIA H100 80GB HBM3 | 1 thread";

// The misses of one replay timed by the fake pet-gpu and imported; returns how many requests there were.
size_t measure_and_import(const std::string& misses, const std::string& db) {
  std::vector<runtime::TimingRequest> requests = runtime::read_requests(misses);
  if (requests.empty()) return 0;
  FakeGpuRuntime fake;
  std::string results = misses + ".results";
  {
    std::ofstream out(results);
    runtime::measure_requests(fake, requests, runtime::models_folder(misses), {"NVIDIA H100 80GB HBM3", fake.version()},
                              out, {.deadline_s = 1e9, .elapsed_s = {}, .timed_before = {}});
  }
  Ran imported = pet_profile({"--import", results, "--misses", misses, "--out", db});
  EXPECT_EQ(imported.status, 0) << imported.err;
  return requests.size();
}

TEST(OfflineLoop, AFixtureResultsFileImportsIntoTheEntriesTheLivePathWouldRecord) {
  fs::path work = folder("import_fixture");
  std::string tag = runtime::gpu_kernels_tag();
  std::string results = write(work / "results.jsonl",
      R"({"device":{"card":"NVIDIA H100 80GB HBM3","runtime":"fake pet-gpu tf32 math (a test double), )" + tag + R"("}})" "\n"
      R"({"request":{"id":1,"target":"h100","kind":"kernel-groups","keys":["Conv(f32[1,8,8,8], f32[8,8,1,1]) f32","Relu(f32[1,8]) f32"],)"
      R"("first_is_reference":false,"threads":1,"warmup":2,"runs":3,"per_node":true,"seed":2026,"models":["a.pet","b.pet"]},)"
      R"("timings":[{"runs_us":[10,12,14],"nodes":[{"name":"r","op":"ReorderInput","kernel":"k","us":1},)"
      R"({"name":"c","op":"Conv","kernel":"k","us":9},{"name":"o","op":"Reorder","kernel":"k","us":2}]},)"
      R"({"runs_us":[4,4,4],"nodes":[]}],"refused":["",""]})" "\n"
      R"({"request":{"id":2,"target":"h100","kind":"selection","keys":["model 00000000000000aa","model 00000000000000bb"],)"
      R"("first_is_reference":true,"threads":1,"warmup":2,"runs":3,"per_node":false,"seed":2026,"models":["a.pet","b.pet"]},)"
      R"("timings":[{"runs_us":[100,102,98],"nodes":[]},{"runs_us":[],"nodes":[]}],"refused":["","pet-gpu refuses model 1"]})" "\n"
      R"({"stopped":"all 2 requests timed"})" "\n");
  std::string db = (work / "db.json").string();
  Ran ran = pet_profile({"--import", results, "--misses", (work / "misses.jsonl").string(), "--out", db});
  ASSERT_EQ(ran.status, 0) << ran.err;
  EXPECT_EQ(ran.out, "imported 2 results (all 2 requests timed): 5 entries under '" + kDevice + "' into " + db + "\n");
  cost::ProfileDb loaded = cost::ProfileDb::load(db);
  std::vector<std::string> got;
  for (const cost::ProfileEntry& entry : loaded.entries()) {
    EXPECT_EQ(entry.device, kDevice);
    got.push_back(fmt::format("{} = {} +- {} x{} [{}]", entry.key, entry.microseconds, entry.spread_us, entry.runs,
                              entry.method));
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "Conv(f32[1,8,8,8], f32[8,8,1,1]) f32 = 9 +- 1 x3 [profiled: ReorderInput/k + Conv/k + Reorder/k]",
                     "Conv(f32[1,8,8,8], f32[8,8,1,1]) f32 @reorder-in = 1 +- 1 x3 [profiled: ReorderInput/k + Conv/k + Reorder/k]",
                     "Conv(f32[1,8,8,8], f32[8,8,1,1]) f32 @reorder-out = 2 +- 1 x3 [profiled: ReorderInput/k + Conv/k + Reorder/k]",
                     "Relu(f32[1,8]) f32 = 4 +- 0 x3 [end to end]",
                     "model 00000000000000aa = 100 +- 1 x3 [end to end]",
                 }));
}

// A kernel group pet-gpu refuses on the card: a results file keeps the refusal, and its import
// records it in the DB under the refused group's key, with the reason.
TEST(OfflineLoop, AKernelGroupPetGpuRefusedImportsAsARefusalWithItsReason) {
  fs::path work = folder("import_refusal");
  std::string tag = runtime::gpu_kernels_tag();
  std::string results = write(work / "results.jsonl",
      R"({"device":{"card":"NVIDIA H100 80GB HBM3","runtime":"fake pet-gpu tf32 math (a test double), )" + tag + R"("}})" "\n"
      R"({"request":{"id":1,"target":"h100","kind":"kernel-groups","keys":["Relu(f32[1,8]) f32","Conv(f32[1,8,9,9], const f32[8,8,1,1]) f32"],)"
      R"("first_is_reference":false,"threads":1,"warmup":2,"runs":3,"per_node":true,"seed":2026,"models":["a.pet","b.pet"]},)"
      R"("timings":[{"runs_us":[4,4,4],"nodes":[]},{"runs_us":[],"nodes":[]}],)"
      R"("refused":["","pet-gpu refuses model 1: its pads differ at the two ends"]})" "\n"
      R"({"stopped":"all 1 requests timed"})" "\n");
  std::string db = (work / "db.json").string();
  Ran ran = pet_profile({"--import", results, "--misses", (work / "misses.jsonl").string(), "--out", db});
  ASSERT_EQ(ran.status, 0) << ran.err;
  std::vector<std::string> got;
  for (const cost::ProfileEntry& entry : cost::ProfileDb::load(db).entries())
    got.push_back(fmt::format("{} = {} x{} [{}]", entry.key, entry.microseconds, entry.runs, entry.method));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "Conv(f32[1,8,9,9], const f32[8,8,1,1]) f32 = 1000000000000 x0 [refused by pet-gpu: pet-gpu "
                     "refuses model 1: its pads differ at the two ends]",
                     "Relu(f32[1,8]) f32 = 4 x3 [end to end]",
                 }));
}

// A 1x1 Conv padded on top only: the fake pet-gpu refuses it, as pet-gpu did before its column path
// (any refusal the card makes takes this path).
const char* kUnevenPads = R"(graph "uneven" opset 13 {
  input %x : f32[1,8,9,9]
  const %w : f32[8,8,1,1] = random(1)
  %c = Conv[dilations=[1,1], group=1, pads=[1,0,0,0], strides=[1,1]](%x, %w) : f32[1,8,10,9]
  output %c
})";

cost::Measurement fake_gpu_measurement(runtime::Runtime* runtime, bool pet_gpu_kernels) {
  cost::Measurement measurement;
  measurement.target = {"h100", true, 1, FakeGpuRuntime().version(), "NVIDIA H100 80GB HBM3"};
  measurement.runtime = runtime;
  measurement.pet_gpu_kernels = pet_gpu_kernels;
  return measurement;
}

// before: a group pet-gpu refused was estimated, live and in every replay, and a program holding it
// competed on that estimate; after: the refusal is kept in the DB and prices the program past every
// runnable one, live and replayed alike, with nothing estimated.
TEST(OfflineLoop, AGroupPetGpuRefusesIsKeptSoItsProgramRanksLastLiveAndReplayed) {
  Graph uneven = parse_graph(kUnevenPads);
  FakeGpuRuntime fake(/*refuses_uneven_pads=*/true);
  cost::CostModel live(cost::load_device("h100"), cost::ProfileDb{}, fake_gpu_measurement(&fake, true));
  double live_us = live.graph_cost(uneven);
  EXPECT_GE(live_us, cost::kRefusedGroupUs * 0.5) << "past any runnable program, under any in-context scale";
  EXPECT_EQ(live.sources().refused, 1);
  EXPECT_EQ(live.sources().estimated, 0);
  std::string key = cost::kernel_groups(uneven, cost::GroupingRule::pet_gpu_steps).groups.at(0).key;
  std::optional<cost::ProfileEntry> kept = live.find_entry(key);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->method, "refused by pet-gpu: the fake pet-gpu refuses it: its pads differ at the two ends");

  cost::CostModel replayed(cost::load_device("h100"), live.profile(), fake_gpu_measurement(nullptr, true));
  EXPECT_EQ(replayed.graph_cost(uneven), live_us);
  EXPECT_EQ(replayed.sources().refused, 1);
  EXPECT_EQ(replayed.sources().estimated, 0);

  // Another runtime may refuse a group stand-alone that its whole model runs: estimated, nothing kept.
  cost::CostModel cpu_like(cost::load_device("h100"), cost::ProfileDb{}, fake_gpu_measurement(&fake, false));
  EXPECT_LT(cpu_like.graph_cost(uneven), 1e6);
  EXPECT_EQ(cpu_like.sources().estimated, 1);
  EXPECT_EQ(cpu_like.sources().refused, 0);
  EXPECT_TRUE(cpu_like.profile().entries().empty());
}

// The input is what every program is weighed against: a refusal of one of its own groups prices it
// by the analytic spec instead (the refusal stays in the DB).
TEST(OfflineLoop, ARefusedGroupOfTheInputItselfIsEstimated) {
  Graph uneven = parse_graph(kUnevenPads);
  FakeGpuRuntime fake(/*refuses_uneven_pads=*/true);
  cost::CostModel live(cost::load_device("h100"), cost::ProfileDb{}, fake_gpu_measurement(&fake, true));
  live.calibrate_in_context(uneven);
  EXPECT_LT(live.graph_cost(uneven), 1e6);
  EXPECT_EQ(live.sources().estimated, 1);
  EXPECT_EQ(live.sources().refused, 0);
  EXPECT_EQ(live.profile().entries().size(), 1u) << "the refusal is kept for the programs after it";
}

TEST(OfflineLoop, AnEmptyDbEstimatesEverythingAndExportsWhatTheLivePathWouldTime) {
  fs::path work = folder("empty_db");
  std::string model = write(work / "two_convs.pet", kTwoConvs);
  std::string db = write(work / "db.json", "{\n  \"entries\": []\n}\n");
  std::string misses = (work / "misses.jsonl").string();
  Ran ran = pet_opt({model, "--target", "h100", "--replay", "--profile-db", db, "--mode", "pet", "--export-misses",
                     misses, "-o", (work / "out.pet").string()});
  ASSERT_EQ(ran.status, 0) << ran.err;
  // Nothing measured: the run's seconds went into recording what it exported, and its export line
  // says so; every kernel group the search priced was estimated (how many depends on its path).
  std::smatch costs;
  ASSERT_TRUE(std::regex_search(ran.out, costs, std::regex("  kernel costs: 0 measured \\(0\\.0 s\\), 0 replayed, ([0-9]+) "
                                                          "estimated; profile DB ")))
      << ran.out;
  EXPECT_GT(std::stoi(costs[1]), 2) << "at least the input's two kernel groups";
  EXPECT_NE(ran.out.find(" estimated; profile DB " + db), std::string::npos) << ran.out;
  EXPECT_NE(ran.out.find(" timing requests the profile DB lacks to " + misses + " in "), std::string::npos) << ran.out;
  EXPECT_NE(ran.out.find("recorded on: no card; the profile DB holds no times of this build's GPU kernels"),
            std::string::npos)
      << ran.out;
  EXPECT_NE(ran.out.find("the choice rests on estimates"), std::string::npos) << ran.out;
  std::set<std::string> kinds;
  for (const runtime::TimingRequest& request : runtime::read_requests(misses)) {
    kinds.insert(request.options.purpose.kind);
    EXPECT_EQ(request.options.threads, 1);
    for (const std::string& file : request.models)
      EXPECT_TRUE(fs::exists(fs::path(runtime::models_folder(misses)) / file)) << file;
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"in-context", "kernel-groups", "ranked", "selection"})) << ran.out;
}

TEST(OfflineLoop, ExportMeasureImportUntilTheReplayEstimatesNothingThenItsChoiceIsMeasured) {
  fs::path work = folder("round_trip");
  std::string model = write(work / "two_convs.pet", kTwoConvs);
  std::string db = write(work / "db.json", "{\n  \"entries\": []\n}\n");
  auto replay = [&](const std::string& misses) {
    std::vector<std::string> args = {model, "--target", "h100", "--replay", "--profile-db", db, "--mode", "taso",
                                     "-o", (work / "out.pet").string()};
    if (!misses.empty()) args.insert(args.end(), {"--export-misses", misses});
    return pet_opt(args);
  };
  int rounds = 0;
  for (; rounds < 5; ++rounds) {
    std::string misses = (work / fmt::format("misses{}.jsonl", rounds)).string();
    Ran ran = replay(misses);
    ASSERT_EQ(ran.status, 0) << ran.err;
    if (measure_and_import(misses, db) == 0) break;
  }
  EXPECT_LT(rounds, 5) << "the loop converges: a replay of what was imported asks for nothing new";
  Ran last = replay("");
  ASSERT_EQ(last.status, 0) << last.err;
  nlohmann::json report = nlohmann::json::parse(read_whole_file((work / "out.json").string(), "report"));
  EXPECT_EQ(report["target"]["kernel_costs"]["estimated"], 0) << last.out;
  EXPECT_EQ(report["target"]["kernel_costs"]["measured"], 0);
  EXPECT_GT(report["target"]["kernel_costs"]["replayed"].get<int>(), 0);
  EXPECT_EQ(report["target"]["cpu"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(report["target"]["selection"]["source"], "replayed");
  EXPECT_NE(last.out.find("recorded on: NVIDIA H100 80GB HBM3 (fake pet-gpu tf32 math (a test double), "),
            std::string::npos)
      << last.out;
  // The golden choice: the merged convs, measured (here by the fake) beyond both spreads.
  EXPECT_EQ(report["target"]["selection"]["chosen"], "program 1") << last.out;
  EXPECT_NE(last.out.find("  chose program 1: program 1 is 1.152x faster than the input, beyond the spread\n"
                          "  kernel costs: 0 measured (0.0 s), 5 replayed, 0 estimated; profile DB " + db + "\n"),
            std::string::npos)
      << last.out;
}

// pet-opt --live on a machine with the card: pet-gpu's worker (here its test double, PET_GPU) times
// what the offline loop would export; the run saves it, and a replay of that DB writes the same model.
TEST(LiveGpu, PetOptTimesOnTheCardThroughTheWorkerAndItsReplayWritesTheSameModel) {
  ScopedEnv worker("PET_GPU", PET_FAKE_GPU_WORKER);
  ScopedEnv card("PET_FAKE_GPU_CARD", nullptr);
  fs::path work = folder("live");
  std::string model = write(work / "two_convs.pet", kTwoConvs);
  std::string db = (work / "db.json").string();  // no file yet: a live run starts empty
  auto run = [&](const std::string& how, const std::string& output) {
    Ran ran = pet_opt({model, "--target", "h200", how, "--profile-db", db, "--mode", "taso", "-o", output});
    EXPECT_EQ(ran.status, 0) << ran.err;
    return ran;
  };
  std::string live_output = (work / "live.onnx").string(), replay_output = (work / "replay.onnx").string();
  ScopedEnv activity("PET_GPU_ACTIVITY_LOG", (work / "activity.txt").c_str());
  Ran live = run("--live", live_output);
  nlohmann::json report = nlohmann::json::parse(read_whole_file((work / "live.json").string(), "report"));
  // The worker was sent its models to time weight-free (smaller than the two weights' 2,048
  // bytes), and the written model to run in strict FP32 with its weights (the merged conv's 2,048).
  std::string sent = read_whole_file((work / "activity.txt").string(), "activity log");
  std::smatch timed, ran;
  ASSERT_TRUE(std::regex_search(sent, timed, std::regex("timed models up to ([0-9]+) bytes, ran models up to 0 bytes")))
      << sent;
  ASSERT_TRUE(std::regex_search(sent, ran, std::regex("timed models up to 0 bytes, ran models up to ([0-9]+) bytes")))
      << sent;
  EXPECT_LT(std::stoul(timed[1]), 2048u) << sent;
  EXPECT_GT(std::stoul(ran[1]), 2048u) << sent;
  // The programs it timed share weights: each was drawn once and found again in later models.
  std::smatch draws;
  ASSERT_TRUE(std::regex_search(
      sent, draws, std::regex("ran models up to 0 bytes; weights filled: ([0-9]+) drawn, ([0-9]+) reused")))
      << sent;
  EXPECT_GT(std::stoul(draws[1]), 0u) << sent;
  EXPECT_GT(std::stoul(draws[2]), std::stoul(draws[1])) << sent;
  EXPECT_GT(report["target"]["kernel_costs"]["measured"].get<int>(), 0) << live.out;
  EXPECT_EQ(report["target"]["kernel_costs"]["estimated"], 0) << live.out;
  EXPECT_EQ(report["target"]["cpu"], "NVIDIA H200 (test double)");
  EXPECT_EQ(report["target"]["selection"]["source"], "measured");
  EXPECT_EQ(report["target"]["selection"]["chosen"], "program 1") << live.out;
  EXPECT_NE(live.out.find("  chose program 1: program 1 is 1.152x faster than the input, beyond the spread\n"),
            std::string::npos)
      << live.out;
  EXPECT_NE(live.out.find("  recorded on: NVIDIA H200 (test double) (fake pet-gpu tf32 math (a test double), "),
            std::string::npos)
      << live.out;
  EXPECT_EQ(live.out.find("physical floor"), std::string::npos) << "a CPU's floor, on a GPU target:\n" << live.out;
  // The written model ran on the card too, in strict FP32, and matched pet's executor.
  EXPECT_EQ(report["written_check"]["runtime"]["target"], "h200");
  EXPECT_EQ(report["written_check"]["runtime"]["passed"], true) << report["written_check"].dump();
  for (const cost::ProfileEntry& entry : cost::ProfileDb::load(db).entries())
    EXPECT_EQ(entry.device, "h200 | fake pet-gpu tf32 math (a test double), " + runtime::gpu_kernels_tag() +
                                " | NVIDIA H200 (test double) | 1 thread");

  Ran replay = run("--replay", replay_output);
  nlohmann::json replayed = nlohmann::json::parse(read_whole_file((work / "replay.json").string(), "report"));
  EXPECT_EQ(replayed["target"]["kernel_costs"]["measured"], 0) << replay.out;
  EXPECT_EQ(replayed["target"]["kernel_costs"]["estimated"], 0) << replay.out;
  EXPECT_EQ(replayed["target"]["selection"]["source"], "replayed");
  EXPECT_EQ(read_whole_file(replay_output, "replayed model"), read_whole_file(live_output, "live model"));

  // Brought home: merged into the committed DB beside what it held, it replays the same.
  std::string committed = write(work / "committed.json",
                                R"({"entries": [{"key": "Relu(f32[1,8]) f32", "device": "h100 | other | card | 1 thread",)"
                                R"( "microseconds": 4, "method": "end to end", "libraries": "x", "date": "2026-11-28",)"
                                R"( "spread_us": 0, "runs": 3}]})" "\n");
  size_t live_entries = cost::ProfileDb::load(db).entries().size();
  Ran merged = pet_profile({"--merge", db, "--out", committed});
  ASSERT_EQ(merged.status, 0) << merged.err;
  EXPECT_EQ(merged.out, fmt::format("merged {} entries from {} into {}\n  {} under 'h200 | fake pet-gpu tf32 math (a "
                                    "test double), {} | NVIDIA H200 (test double) | 1 thread'\n",
                                    live_entries, db, committed, live_entries, runtime::gpu_kernels_tag()));
  EXPECT_EQ(cost::ProfileDb::load(committed).entries().size(), live_entries + 1);
  Ran from_committed = pet_opt({model, "--target", "h200", "--replay", "--profile-db", committed, "--mode", "taso", "-o",
                                (work / "from_committed.onnx").string()});
  ASSERT_EQ(from_committed.status, 0) << from_committed.err;
  EXPECT_EQ(read_whole_file((work / "from_committed.onnx").string(), "model"), read_whole_file(live_output, "live model"));
  EXPECT_EQ(pet_profile({"--merge", db, "--out", db}).err,
            "pet-profile: error: pet-profile --merge '" + db + "' is the --out DB itself; name the DB to add\n");
  EXPECT_EQ(pet_profile({"--merge", db, "--import", "r.jsonl", "--out", committed}).err,
            "pet-profile: error: pet-profile --merge adds a profile DB; --import RESULTS --misses FILE imports pet-gpu "
            "measure's results: one of them per run, and no other arguments\n");
}

// A live run times one kernel group at a time: each generation round generates on every core and
// prices in order, and the search finalizes its candidates (and prices those whose groups are
// known) on every core, the rest one by one in order. Before -> after: with one thread or three,
// the same model, report, and the same kernel groups timed in the same order (the DB's entries, in
// the order they were added).
TEST(LiveGpu, ScoringOnSeveralThreadsTimesWhatOneThreadTimesInTheSameOrder) {
  ScopedEnv worker("PET_GPU", PET_FAKE_GPU_WORKER);
  ScopedEnv card("PET_FAKE_GPU_CARD", nullptr);
  fs::path work = folder("live_threads");
  // Four subprograms with fully and partially equivalent mutants, so generation prices corrections.
  std::string model = std::string(PET_SOURCE_DIR) + "/tests/kernels/gpu/executor_models/conv_block.pet";
  auto run = [&](const std::string& jobs) {
    std::string db = (work / ("db" + jobs + ".json")).string(), output = (work / ("out" + jobs + ".onnx")).string();
    Ran ran = pet_opt({model, "--target", "h200", "--live", "--profile-db", db, "--mode", "pet", "--jobs", jobs, "-o",
                       output});
    EXPECT_EQ(ran.status, 0) << ran.err;
    std::vector<std::string> timed;
    for (const cost::ProfileEntry& entry : cost::ProfileDb::load(db).entries())
      timed.push_back(fmt::format("{} {:.3f}", entry.key, entry.microseconds));
    nlohmann::json report = nlohmann::json::parse(read_whole_file((work / ("out" + jobs + ".json")).string(), "report"));
    EXPECT_GT(report["search"]["candidates"].get<int>(), 4) << ran.out;
    report.erase("output");  // out1.onnx, out3.onnx
    return std::tuple{read_whole_file(output, "model"), report.dump(), timed};
  };
  auto [one_model, one_report, one_timed] = run("1");
  auto [three_model, three_report, three_timed] = run("3");
  EXPECT_GT(one_timed.size(), 3u);
  EXPECT_EQ(three_timed, one_timed);
  EXPECT_EQ(three_report, one_report);
  EXPECT_EQ(three_model, one_model);
  // A replay times nothing, so it generates and scores each subprogram and candidate whole on every
  // core: the same mutants and the same model as the live runs' round-by-round generation.
  std::string replayed = (work / "replayed.onnx").string();
  Ran replay = pet_opt({model, "--target", "h200", "--replay", "--profile-db", (work / "db1.json").string(), "--mode",
                        "pet", "-o", replayed});
  ASSERT_EQ(replay.status, 0) << replay.err;
  nlohmann::json live = nlohmann::json::parse(one_report);
  nlohmann::json again = nlohmann::json::parse(read_whole_file((work / "replayed.json").string(), "report"));
  EXPECT_GT(live["generation"]["mutants"]["partial"].get<int>(), 0) << live["generation"].dump();
  EXPECT_GT(live["generation"]["subprograms"]["linear"].get<int>(), 1) << live["generation"].dump();
  EXPECT_EQ(again["generation"], live["generation"]);
  EXPECT_EQ(read_whole_file(replayed, "replayed model"), one_model);
}

// Before: only a model's weight-free form travels to the card, and a profile DB's whole-model keys
// hashed the weights, so what a live run timed there replayed on that form alone and a user's own
// model (the same network with its weights) estimated its in-context, ranked and selection times.
// After: those keys are timing hashes, blind to the weights' values, and the search breaks its ties
// by them, so the model with its weights replays the live run's choice with nothing estimated.
TEST(LiveGpu, TimesTakenOnAWeightFreeFormReplayOnTheModelWithItsWeights) {
  ScopedEnv worker("PET_GPU", PET_FAKE_GPU_WORKER);
  ScopedEnv card("PET_FAKE_GPU_CARD", nullptr);
  fs::path work = folder("live_weight_free");
  std::string model = (work / "two_convs.onnx").string();
  write_file_atomically(model, serialize_onnx(parse_graph(kTwoConvs)), "a test model");
  std::string weight_free = write(work / "model.pet", print_graph(import_onnx(model), {.node_names = true,
                                                                                       .weight_free = true}));
  ASSERT_NE(read_whole_file(weight_free, "model").find("random("), std::string::npos) << "weights regenerated there";
  std::string db = (work / "db.json").string();
  Ran live = pet_opt({weight_free, "--target", "h200", "--live", "--profile-db", db, "--mode", "taso", "-o",
                      (work / "live.onnx").string()});
  ASSERT_EQ(live.status, 0) << live.err;
  Ran replay = pet_opt({model, "--target", "h200", "--replay", "--profile-db", db, "--mode", "taso", "-o",
                        (work / "replay.onnx").string()});
  ASSERT_EQ(replay.status, 0) << replay.err;
  nlohmann::json measured = nlohmann::json::parse(read_whole_file((work / "live.json").string(), "report"));
  nlohmann::json replayed = nlohmann::json::parse(read_whole_file((work / "replay.json").string(), "report"));
  EXPECT_EQ(replayed["target"]["kernel_costs"]["measured"], 0) << replay.out;
  EXPECT_EQ(replayed["target"]["kernel_costs"]["estimated"], 0) << replay.out;
  EXPECT_EQ(replayed["target"]["selection"]["source"], "replayed");
  EXPECT_EQ(replayed["target"]["selection"]["chosen"], measured["target"]["selection"]["chosen"]) << replay.out;
  EXPECT_EQ(replayed["target"]["selection"]["chosen"], "program 1") << replay.out;
}

// Before: a run cancelled (Ctrl-C, a session's deadline) threw away every time it had taken. After:
// what it measured before the cancellation is in the DB, and the next run replays it.
TEST(LiveGpu, ACancelledRunWritesNothingButKeepsWhatItMeasured) {
  ScopedEnv worker("PET_GPU", PET_FAKE_GPU_WORKER);
  ScopedEnv card("PET_FAKE_GPU_CARD", nullptr);
  fs::path work = folder("live_cancelled");
  std::string model = write(work / "two_convs.pet", kTwoConvs), db = (work / "db.json").string();
  std::string output = (work / "out.onnx").string();
  int asked = 0;  // the hook's 4th question comes as the calibration stage ends, its times taken
  std::ostringstream out, err;
  int status = pet_opt_main({model, "--target", "h200", "--live", "--profile-db", db, "--mode", "taso", "-o", output},
                            out, err, [&] { return ++asked >= 4; });
  EXPECT_EQ(status, 130) << err.str();
  EXPECT_EQ(err.str(), "pet-opt: cancelled; nothing was written\n");
  EXPECT_FALSE(fs::exists(output));
  ASSERT_TRUE(fs::exists(db)) << "the cancelled run's times were dropped";
  std::vector<cost::ProfileEntry> kept = cost::ProfileDb::load(db).entries();
  EXPECT_FALSE(kept.empty());
  bool in_context = false;
  for (const cost::ProfileEntry& entry : kept) in_context |= entry.key.starts_with(cost::kInContextKeyPrefix);
  EXPECT_TRUE(in_context) << "the calibration's run of the cleaned input is among the " << kept.size() << " entries";
}

TEST(LiveGpuErrors, LiveNeedsAGpuTargetOfThisCardAndNoReplayOrExport) {
  ScopedEnv worker("PET_GPU", PET_FAKE_GPU_WORKER);
  fs::path work = folder("live_errors");
  std::string model = write(work / "two_convs.pet", kTwoConvs), output = (work / "o.pet").string();
  EXPECT_EQ(pet_opt({model, "--target", "a100", "--live", "-o", output}).err,
            "pet-opt: error: --live times a GPU target on this machine's card; target a100 is estimated, never timed, "
            "so drop --live or choose --target h100 or h200\n");
  EXPECT_EQ(pet_opt({model, "--target", "h200", "--live", "--replay", "-o", output}).err,
            "pet-opt: error: --live times on this machine's GPU and --replay times nothing: pass one of them\n");
  EXPECT_EQ(pet_opt({model, "--target", "h200", "--live", "--export-misses", (work / "m.jsonl").string(), "-o",
                     output}).err,
            "pet-opt: error: --live times on this machine's GPU, so nothing is left to export: drop --export-misses\n");
  ScopedEnv card("PET_FAKE_GPU_CARD", "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(pet_opt({model, "--target", "h100", "--live", "-o", output}).err,
            "pet-opt: error: --live --target h100 times on that card, and this machine's GPU is an NVIDIA "
            "A100-SXM4-80GB; choose the target this card is (h100 or h200), or drop --live to replay "
            "bench/profiles/h100.json\n");
  EXPECT_FALSE(fs::exists(output));
}

// Before: a committed DB whose entries were of an earlier build's GPU kernels looked like any other,
// and only a replay's "0 replayed" showed it. After: --summary says, per device, what it holds and
// whether this build replays it.
TEST(OfflineLoop, ADbOfOtherKernelsIsSetAsideAndTheRunSaysWhichTimesItHolds) {
  fs::path work = folder("other_kernels");
  std::string model = write(work / "two_convs.pet", kTwoConvs);
  auto entry = [](const std::string& key, const std::string& kernels, const std::string& date) {
    return fmt::format(R"({{"key": "{}", "device": "h200 | pet-gpu tf32 math (x), {} | NVIDIA H200 | 1 thread", )"
                       R"("microseconds": 4, "method": "m", "libraries": "x", "date": "{}", "spread_us": 0, "runs": 3}})",
                       key, kernels, date);
  };
  std::string db = write(work / "db.json", "{\"entries\": [" + entry("a", "kernels 0000000000000001", "2026-11-28") +
                                               ", " + entry("b", "kernels 0000000000000001", "2026-11-29") + ", " +
                                               entry("c", "kernels 0000000000000002", "2026-11-27") + "]}\n");
  std::string report = (work / "out.json").string();
  Ran ran = pet_opt({model, "--target", "h200", "--replay", "--profile-db", db, "--mode", "taso", "-o",
                     (work / "out.pet").string(), "--report", report});
  ASSERT_EQ(ran.status, 0) << ran.err;
  // Before: times of two older kernels in the DB. After: every cost estimated, and the run names the
  // latest recording it set aside.
  EXPECT_NE(ran.out.find("so every cost is estimated (it holds 2 times of kernels 0000000000000001 on NVIDIA H200, "
                         "the last of 2026-11-29, set aside: pet-gpu's kernels changed since"),
            std::string::npos)
      << ran.out;
  std::ifstream written(report);
  nlohmann::json json = nlohmann::json::parse(written);
  EXPECT_EQ(json["target"]["times_set_aside"], "2 times of kernels 0000000000000001 on NVIDIA H200, the last of 2026-11-29");
  // A DB with no times of this target at all says nothing of the kind.
  std::string empty = write(work / "empty.json", "{\"entries\": []}\n");
  Ran none = pet_opt({model, "--target", "h200", "--replay", "--profile-db", empty, "--mode", "taso", "-o",
                      (work / "out2.pet").string()});
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(none.out.find("set aside"), std::string::npos) << none.out;
}

TEST(ProfileSummary, EachDeviceItsEntriesByKindItsDatesAndWhetherThisBuildReplaysItsGpuKernels) {
  fs::path work = folder("summary");
  auto entry = [](const std::string& key, const std::string& device, const std::string& date) {
    return fmt::format(R"({{"key": "{}", "device": "{}", "microseconds": 4, "method": "m", "libraries": "x", )"
                       R"("date": "{}", "spread_us": 0, "runs": 3}})",
                       key, device, date);
  };
  const std::string stale = "h200 | pet-gpu tf32 math (x), kernels 0000000000000000 | NVIDIA H200 | 1 thread";
  const std::string current = "h200 | pet-gpu tf32 math (x), " + runtime::gpu_kernels_tag() + " | NVIDIA H200 | 1 thread";
  const std::string cpu = "ort-cpu | onnxruntime 1.0 | a CPU | 1 thread";
  std::string db = write(work / "db.json",
                         "{\"entries\": [" + entry("model 00000000000000aa", stale, "2026-11-28") + ", " +
                             entry("Relu(f32[1,8]) f32", current, "2026-11-29") + ", " +
                             R"({"key": "Conv(f32[1,8,9,9], const f32[8,8,1,1]) f32", "device": ")" + current +
                             R"(", "microseconds": 1e12, "method": "refused by pet-gpu: its pads differ", )"
                             R"("libraries": "x", "date": "2026-11-29"}, )" +
                             entry("in-context model 00000000000000bb | Relu(f32[1,8]) f32", current, "2026-11-30") +
                             ", " + entry("ranked model 00000000000000cc", current, "2026-11-29") + ", " +
                             entry("Relu(f32[1,8]) f32", cpu, "2026-11-27") + "]}\n");
  Ran summary = pet_profile({"--summary", db});
  ASSERT_EQ(summary.status, 0) << summary.err;
  EXPECT_EQ(summary.out,
            db + ": 6 entries, 3 devices\n"
                 "  '" + stale + "': 1 entry (0 kernel-groups, 0 in-context, 0 ranked, 1 selection), recorded "
                 "2026-11-28\n"
                 "    other GPU kernels than this build's (" + runtime::gpu_kernels_tag() + "): pet-opt built from "
                 "these sources replays none of them\n"
                 "  '" + current + "': 4 entries (2 kernel-groups (1 refused by pet-gpu), 1 in-context, 1 ranked, "
                 "0 selection), recorded "
                 "2026-11-29 to 2026-11-30\n"
                 "    this build's GPU kernels: pet-opt replays them\n"
                 "  '" + cpu + "': 1 entry (1 kernel-groups, 0 in-context, 0 ranked, 0 selection), recorded "
                 "2026-11-27\n");
  EXPECT_EQ(pet_profile({"--summary", (work / "none.json").string()}).err,
            "pet-profile: error: pet-profile --summary: '" + (work / "none.json").string() +
                "' does not exist; name a profile DB, e.g. bench/profiles/h200.json\n");
  EXPECT_EQ(pet_profile({"--summary", db, "--out", db}).err,
            "pet-profile: error: pet-profile --summary DB reads one profile DB and changes nothing; give it no other "
            "arguments\n");
}

// What a GPU target whose profile DB holds nothing prices `graph` at: every kernel group estimated.
double estimated_by_gpu_target(const std::string& card, const Graph& graph) {
  cost::Measurement measurement;
  measurement.target = {card, true, 1, "", ""};
  measurement.pet_gpu_kernels = true;
  return cost::CostModel(cost::load_device(card), cost::ProfileDb{}, measurement).graph_cost(graph);
}

// --estimate lays the analytic spec's prices over a model's kernel groups, one line each, so a card's
// per-step times can be set beside them (bench/gpu/fit_spec.py): its lines sum, per device, to what
// a GPU target with an empty profile DB prices the whole graph at.
TEST(ProfileEstimate, EachKernelGroupsEstimatePerDeviceSumsToWhatAGpuTargetEstimates) {
  fs::path work = folder("estimate");
  std::string model = write(work / "two_convs.pet", kTwoConvs);
  Ran ran = pet_profile({"--estimate", model, "--device", "h100", "--device", "h200"});
  ASSERT_EQ(ran.status, 0) << ran.err;
  std::istringstream lines(ran.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(nlohmann::json::parse(line), nlohmann::json({{"model", model}, {"devices", {"h100", "h200"}}}));
  std::vector<std::string> heads, places;
  double h100_us = 0, h200_us = 0;
  while (std::getline(lines, line)) {
    nlohmann::json group = nlohmann::json::parse(line);
    heads.push_back(group["head"].get<std::string>() + " " + group["ops"].get<std::string>());
    double nodes_us = 0;
    for (const nlohmann::json& node : group["nodes"]) {
      nodes_us += node["us"][0].get<double>();
      places.push_back(node["place"].get<std::string>());
    }
    EXPECT_DOUBLE_EQ(group["us"][0].get<double>(), nodes_us);
    h100_us += group["us"][0].get<double>();
    h200_us += group["us"][1].get<double>();
  }
  Graph graph = parse_graph(kTwoConvs);
  // One line per pet-gpu step, in pet-gpu's order: each convolution with its ReLU, then the Add.
  EXPECT_EQ(heads, (std::vector<std::string>{"c1 Conv+Relu", "c2 Conv+Relu", "y Add"}));
  EXPECT_EQ(places, (std::vector<std::string>{"own kernel", "fused", "own kernel", "fused", "own kernel"}))
      << "a Relu rides in the convolution's epilogue, the Add after it is a step of its own";
  EXPECT_NEAR(h100_us, estimated_by_gpu_target("h100", graph), 1e-9);
  EXPECT_NEAR(h200_us, estimated_by_gpu_target("h200", graph), 1e-9);
  // A corrected program: pet-gpu computes the patches in steps of their own before the correction's
  // kernel, and the estimate prices them as those steps, as a GPU target does.
  std::string corrected = std::string(PET_SOURCE_DIR) + "/tests/kernels/gpu/executor_models/correction.pet";
  Ran with_correction = pet_profile({"--estimate", corrected, "--device", "h200"});
  ASSERT_EQ(with_correction.status, 0) << with_correction.err;
  double corrected_us = 0;
  std::istringstream corrected_lines(with_correction.out);
  std::getline(corrected_lines, line);
  while (std::getline(corrected_lines, line)) corrected_us += nlohmann::json::parse(line)["us"][0].get<double>();
  std::ifstream corrected_file(corrected);
  std::stringstream corrected_text;
  corrected_text << corrected_file.rdbuf();
  Graph corrected_graph = parse_graph(corrected_text.str());
  std::vector<bool> in_kernel = cost::fused_correction_nodes(corrected_graph);
  ASSERT_GT(std::count(in_kernel.begin(), in_kernel.end(), true), 0);
  EXPECT_NEAR(corrected_us, estimated_by_gpu_target("h200", corrected_graph), 1e-9);
  Ran twice = pet_profile({"--estimate", model, "--estimate", model, "--device", "h200"});
  ASSERT_EQ(twice.status, 0) << twice.err;
  std::string header = nlohmann::json({{"model", model}, {"devices", {"h200"}}}).dump();
  EXPECT_EQ(twice.out.find(header), 0u);
  EXPECT_NE(twice.out.find(header, 1), std::string::npos);  // each model's lines after its own header
  EXPECT_EQ(std::count(twice.out.begin(), twice.out.end(), '\n'), 8);
  EXPECT_EQ(pet_profile({"--estimate", model}).err,
            "pet-profile: error: pet-profile --estimate needs --device NAME|FILE, the device spec (h100, h200, a100, "
            "v100 or a JSON file); see pet-profile --help\n");
  EXPECT_EQ(pet_profile({"--estimate", model, "--device", "h200", "--out", "db.json"}).err,
            "pet-profile: error: pet-profile --estimate MODEL --device NAME|FILE prints estimates and changes "
            "nothing; give it no other arguments\n");
}

TEST(OfflineLoopErrors, ExportingMissesOfATargetTimedHereOrEstimatedSaysWhatTheFlagIsFor) {
  fs::path work = folder("errors");
  std::string model = write(work / "two_convs.pet", kTwoConvs);
  std::string misses = (work / "m.jsonl").string(), output = (work / "o.pet").string();
  EXPECT_EQ(pet_opt({model, "--target", "a100", "--export-misses", misses, "-o", output}).err,
            "pet-opt: error: --export-misses writes the timings a GPU target's profile DB lacks; target a100 is "
            "estimated, never timed, so drop --export-misses or choose --target h100 or h200\n");
  EXPECT_EQ(pet_opt({model, "--target", "a100", "--profile-db", (work / "db.json").string(), "-o", output}).err,
            "pet-opt: error: --profile-db: target a100 is an analytic spec and reads no profile DB; measured GPU times "
            "are for --target h100 or h200\n");
  EXPECT_FALSE(fs::exists(misses));
}

TEST(OfflineLoopErrors, ImportingNeedsTheMissesFileAndAResultsFileWithItsDevice) {
  fs::path work = folder("import_errors");
  EXPECT_EQ(pet_profile({"--import", "r.jsonl", "--out", "db.json"}).err,
            "pet-profile: error: pet-profile needs --misses FILE, the misses file the results answer; see pet-profile "
            "--help\n");
  std::string headless = write(work / "headless.jsonl", "{\"stopped\":\"all 0 requests timed\"}\n");
  EXPECT_EQ(pet_profile({"--import", headless, "--misses", "m.jsonl", "--out", (work / "db.json").string()}).err,
            "pet-profile: error: results file '" + headless +
                "' has no device line; it is not the output of pet-gpu measure\n");
}

}  // namespace
}  // namespace pet::testing
