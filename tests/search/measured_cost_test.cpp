// The measured cost model: kernel groups and their stand-alone models (before -> after on the
// textual IR), and a real ONNX Runtime measurement written to the profile DB and replayed. No
// test asserts how long anything takes beyond "more than zero".
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "core/text_ir.h"
#include "kernels/runtime/ort_runtime.h"
#include "kernels/runtime/runtime.h"
#include "search/cost/cost_model.h"
#include "search/cost/kernel_groups.h"
#include "tests/test_temp_dir.h"

namespace pet::testing {
namespace {

const char* kResidualBlock = R"(graph "block" opset 13 {
  input %x : f32[1,8,6,6]
  const %w : f32[8,8,3,3] = random(1)
  const %b : f32[8] = random(2)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b) : f32[1,8,6,6]
  %s = Add(%c, %x) : f32[1,8,6,6]
  %r = Relu(%s) : f32[1,8,6,6]
  %t = Transpose[perm=[0,2,3,1]](%r) : f32[1,6,6,8]
  output %t
}
)";

std::vector<std::string> group_keys(const Graph& graph) {
  std::vector<std::string> keys;
  for (const cost::KernelGroup& group : cost::kernel_groups(graph).groups) keys.push_back(group.key);
  return keys;
}

TEST(KernelGroups, AConvTakesTheElementwiseOpsThatFollowItAlone) {
  EXPECT_EQ(group_keys(parse_graph(kResidualBlock)),
            (std::vector<std::string>{
                "Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](f32[1,8,6,6], const f32[8,8,3,3], "
                "const f32[8]) f32 ; Add(#0, f32[1,8,6,6]) f32 ; Relu(#1) f32",
                "Transpose[perm=[0,2,3,1]](f32[1,8,6,6]) f32"}));
}

// Before: a Conv with its Relu fused (finalize's form) and the same Conv followed by a Relu node
// (the imported form). After: one key, so the runtime's one kernel is timed and found once.
TEST(KernelGroups, AFusedActivationIsKeyedAsTheReluNodeItStandsFor) {
  const char* separate = R"(graph "separate" opset 13 {
  input %x : f32[1,8,6,6]
  const %w : f32[8,8,3,3] = random(1)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,8,6,6]
  %r = Relu(%c) : f32[1,8,6,6]
  %s = Add(%r, %x) : f32[1,8,6,6]
  output %s
}
)";
  const char* fused = R"(graph "fused" opset 13 {
  input %x : f32[1,8,6,6]
  const %w : f32[8,8,3,3] = random(1)
  %c = Conv[activation="relu", dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,8,6,6]
  %s = Add(%c, %x) : f32[1,8,6,6]
  output %s
}
)";
  std::vector<std::string> expected = {
      "Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](f32[1,8,6,6], const f32[8,8,3,3]) f32 ; "
      "Relu(#0) f32 ; Add(#1, f32[1,8,6,6]) f32"};
  EXPECT_EQ(group_keys(parse_graph(separate)), expected);
  EXPECT_EQ(group_keys(parse_graph(fused)), expected);
}

TEST(KernelGroups, KeysWithoutAFusedActivationOrOfNoKernelAreKeptAsTheyAre) {
  EXPECT_EQ(cost::canonical_key("Relu(f32[2]) f32"), "Relu(f32[2]) f32");
  EXPECT_EQ(cost::canonical_key("model activation 0123abcd"), "model activation 0123abcd");
  EXPECT_EQ(cost::canonical_key("Conv[activation=\"relu\"](f32[1]) f32 ; Add(#x, f32[1]) f32"),
            "Conv(f32[1]) f32 ; Relu(#0) f32 ; Add(#x, f32[1]) f32");
}

// Before: a DB written before keys were canonical, timing one kernel under both spellings.
// After: it loads, keeps the first entry, and finds it under either spelling.
TEST(ProfileDbKeys, AnOldDbIsFoundUnderTheCanonicalKeyAndKeepsTheFirstOfTwoSpellings) {
  cost::ProfileDb db = cost::ProfileDb::parse(R"({"entries": [
    {"device": "ort-cpu", "key": "Conv[activation=\"relu\", group=1](f32[1,2,3,3], const f32[2,2,1,1]) f32",
     "microseconds": 7, "method": "m", "libraries": "l", "date": "d"},
    {"device": "ort-cpu", "key": "Conv[group=1](f32[1,2,3,3], const f32[2,2,1,1]) f32 ; Relu(#0) f32",
     "microseconds": 9, "method": "m", "libraries": "l", "date": "d"}]})",
                                              "old.json");
  ASSERT_EQ(db.entries().size(), 1u);
  EXPECT_EQ(db.entries()[0].key, "Conv[group=1](f32[1,2,3,3], const f32[2,2,1,1]) f32 ; Relu(#0) f32");
  EXPECT_EQ(db.lookup("ort-cpu", "Conv[activation=\"relu\", group=1](f32[1,2,3,3], const f32[2,2,1,1]) f32"), 7);
  EXPECT_EQ(db.lookup("ort-cpu", "Conv[group=1](f32[1,2,3,3], const f32[2,2,1,1]) f32 ; Relu(#0) f32"), 7);
}

TEST(KernelGroups, AValueReadTwiceEndsTheGroup) {
  Graph graph = parse_graph(R"(graph "fork" opset 13 {
    input %x : f32[1,4]
    %a = Relu(%x) : f32[1,4]
    %b = Neg(%a) : f32[1,4]
    %c = Add(%a, %b) : f32[1,4]
    output %c
  })");
  EXPECT_EQ(group_keys(graph),
            (std::vector<std::string>{"Relu(f32[1,4]) f32", "Neg(f32[1,4]) f32 ; Add(f32[1,4], #0) f32"}));
}

TEST(KernelGroups, WeightsComputedFromConstantsArePricedAsTheConstantsFinalizeMakes) {
  // Before: the conv reads a weight the search concatenated but has not folded yet.
  Graph graph = parse_graph(R"(graph "merged" opset 13 {
    input %x : f32[1,4,5,5]
    const %w0 : f32[2,4,1,1] = random(3)
    const %w1 : f32[2,4,1,1] = random(4)
    %w = Concat[axis=0](%w0, %w1) : f32[4,4,1,1]
    %c = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,4,5,5]
    output %c
  })");
  std::vector<cost::KernelGroup> groups = cost::kernel_groups(graph).groups;
  ASSERT_EQ(groups.size(), 1u) << "the Concat of weights runs before the model does";
  EXPECT_EQ(groups[0].key,
            "Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](f32[1,4,5,5], const f32[4,4,1,1]) f32");
  // After: the group's stand-alone model holds the concatenated weight as a constant.
  Graph model = cost::kernel_group_model(graph, groups[0]);
  std::string printed = print_graph(model);
  EXPECT_EQ(printed.substr(0, printed.find(" = [")), R"(graph "kernel" opset 13 {
  input %x : f32[1,4,5,5]
  const %w : f32[4,4,1,1])");
  EXPECT_NE(printed.find("%c = Conv"), std::string::npos) << printed;
  const Tensor& folded = *model.value(*model.find_value("w")).constant;
  const Tensor& w0 = *graph.value(*graph.find_value("w0")).constant;
  const Tensor& w1 = *graph.value(*graph.find_value("w1")).constant;
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(folded.f32()[static_cast<size_t>(i)], w0.f32()[static_cast<size_t>(i)]);
    EXPECT_EQ(folded.f32()[static_cast<size_t>(i + 8)], w1.f32()[static_cast<size_t>(i)]);
  }
}

TEST(KernelGroups, AGroupModelReadsOutsideValuesAsInputsAndWritesWhatOthersRead) {
  Graph graph = parse_graph(kResidualBlock);
  Graph model = cost::kernel_group_model(graph, cost::kernel_groups(graph).groups[0]);
  EXPECT_EQ(model.inputs().size(), 1u) << "x, read by the conv and the add, is one input";
  ASSERT_EQ(model.outputs().size(), 1u);
  EXPECT_EQ(model.value(model.outputs()[0]).name, "r");
  EXPECT_EQ(model.nodes().size(), 3u);
}

std::filesystem::path db_path(const std::string& name) { return private_temp_dir() / name; }

TEST(MeasuredCost, OrtTimesEachKernelGroupOnceRecordsItAndReplaysTheSameCost) {
  std::unique_ptr<runtime::Runtime> ort = runtime::open_ort_runtime();
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, ort->version(), runtime::cpu_model()};
  measurement.picks_correction_lowering = true;
  measurement.runtime = ort.get();
  measurement.timing.runs = 3;
  cost::CostModel measured(cost::load_cpu_fallback(), {}, measurement);
  Graph graph = parse_graph(kResidualBlock);
  double cost_us = measured.graph_cost(graph);
  EXPECT_GT(cost_us, 0);
  EXPECT_EQ(measured.graph_cost(graph), cost_us) << "the second time comes from the memo";
  cost::CostSources sources = measured.sources();
  EXPECT_EQ(sources.measured, 2);
  EXPECT_EQ(sources.replayed + sources.estimated, 0);

  std::string path = db_path("measured-db.json").string();
  measured.profile().save(path);
  cost::ProfileDb loaded = cost::ProfileDb::load(path);
  int kernels = 0;
  for (const cost::ProfileEntry& entry : loaded.entries()) {
    kernels += entry.key.find(" @reorder-") == std::string::npos;
    EXPECT_EQ(entry.device, measurement.target.db_device());
  }
  EXPECT_EQ(kernels, 2) << "the conv's group and the transpose (and the reorders ONNX Runtime put around the conv)";
  EXPECT_EQ(loaded.entries()[0].runs, 3);
  EXPECT_EQ(loaded.to_json_text(), measured.profile().to_json_text()) << "written and read back unchanged";

  measurement.runtime = nullptr;  // replay: nothing is timed
  cost::CostModel replayed(cost::load_cpu_fallback(), loaded, measurement);
  EXPECT_EQ(replayed.graph_cost(graph), cost_us);
  EXPECT_EQ(replayed.sources().replayed, 2);
  EXPECT_EQ(replayed.sources().measured + replayed.sources().estimated, 0);
}

TEST(MeasuredCost, ReordersArePaidOnlyWhereABlockedRegionMeetsAPlainLayout) {
  // Two convs the runtime runs in a blocked layout, then a transpose it runs plain: the reorder
  // into the blocked layout is paid once (at the graph input), the one out once (before the
  // transpose), not around each conv as each was timed stand-alone.
  Graph graph = parse_graph(R"(graph "chain" opset 13 {
    input %x : f32[1,8,6,6]
    const %w : f32[8,8,1,1] = random(1)
    %c1 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,8,6,6]
    %c2 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%c1, %w) : f32[1,8,6,6]
    %t = Transpose[perm=[0,2,3,1]](%c2) : f32[1,6,6,8]
    output %t
  })");
  std::vector<cost::KernelGroup> groups = cost::kernel_groups(graph).groups;
  ASSERT_EQ(groups.size(), 3u);
  ASSERT_EQ(groups[0].key, groups[1].key) << "the two convs are one kernel";
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"};
  measurement.picks_correction_lowering = true;
  cost::ProfileDb db;
  auto add = [&](const std::string& key, double microseconds) {
    db.add({key, measurement.target.db_device(), microseconds, "test", "onnxruntime 0.0.0", "2026-11-24"});
  };
  add(groups[0].key, 10);
  add(groups[0].key + " @reorder-in", 1);
  add(groups[0].key + " @reorder-out", 2);
  add(groups[2].key, 5);
  cost::CostModel replayed(cost::load_cpu_fallback(), db, measurement);
  EXPECT_EQ(replayed.graph_cost(graph), 10 + 10 + 5 + 1 + 2);
  EXPECT_EQ(replayed.sources().replayed, 2);
}

TEST(MeasuredCost, AReplayedDbWithoutAGroupEstimatesItAndSaysSo) {
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"};
  measurement.picks_correction_lowering = true;
  cost::CostModel replayed(cost::load_cpu_fallback(), {}, measurement);
  EXPECT_GT(replayed.graph_cost(parse_graph(kResidualBlock)), 0);
  EXPECT_EQ(replayed.sources().estimated, 2);
  EXPECT_EQ(replayed.sources().measured + replayed.sources().replayed, 0);
}

TEST(MeasuredCost, ATargetIsRecordedUnderOneDeviceStringAndReadBack) {
  cost::Target target{"openvino-cpu", true, 2, "openvino 2026.4.1", "AMD EPYC"};
  EXPECT_EQ(target.db_device(), "openvino-cpu | openvino 2026.4.1 | AMD EPYC | 2 threads");
  EXPECT_EQ(target.describe(), "openvino-cpu (openvino 2026.4.1, 2 threads, AMD EPYC)");
  cost::Target read = cost::parse_db_device(target.db_device());
  EXPECT_EQ(read.db_device(), target.db_device());
  EXPECT_FALSE(cost::parse_db_device("h100").measured);
}

}  // namespace
}  // namespace pet::testing
