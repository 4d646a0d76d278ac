// The offline loop's machinery without a GPU: request and result lines read back as written, the
// recording runtime's requests, and the request runner (behind a fake runtime) stopping at its deadline.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <sstream>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "kernels/runtime/recording_runtime.h"
#include "kernels/runtime/request_runner.h"
#include "kernels/runtime/timing_request.h"
#include "tests/kernels/runtime/fake_gpu_runtime.h"
#include "tests/test_temp_dir.h"
#include "tests/user_error_message.h"

namespace pet::runtime {
namespace {

const char* kConvRelu = R"(graph "conv_relu" opset 13 {
  input %x : f32[1,8,16,16]
  const %w : f32[16,8,3,3] = random(1)
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,16,16,16]
  %z = Relu(%y) : f32[1,16,16,16]
  output %z
})";

const char* kRelu = R"(graph "relu" opset 13 {
  input %x : f32[1,16]
  %y = Relu(%x) : f32[1,16]
  output %y
})";

TimingOptions selection_options() {
  return {.threads = 1, .warmup = 2, .runs = 3, .per_node = false, .seed = 7,
          .purpose = {"selection", {"model a", "model b"}, FirstModel::reference}};
}

std::string write(const std::string& name, const std::string& text) {
  std::string path = (pet::testing::private_temp_dir() / name).string();
  write_file_atomically(path, text, "a test file");
  return path;
}

TEST(TimingRequest, ALineReadsBackAsWritten) {
  TimingRequest request{3, "h100", selection_options(), {"a.pet", "b.pet"}};
  std::vector<TimingRequest> read = read_requests(write("one.jsonl", request_line(request)));
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(request_line(read[0]), request_line(request));
  EXPECT_EQ(read[0].options.purpose.first, FirstModel::reference);
  EXPECT_EQ(read[0].options.purpose.keys, (std::vector<std::string>{"model a", "model b"}));
}

TEST(TimingRequest, ABadLineNamesTheFileAndLineAndTheField) {
  std::string path = write("bad.jsonl", request_line({1, "h100", selection_options(), {"a.pet"}}) + "{\"id\": 2}\n");
  try {
    read_requests(path);
    FAIL() << "a request without a target was read";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              path + ":2: the line has no \"target\"; write the file again with the tool that made it");
  }
}

TEST(TimingResults, ALastLineCutMidWriteIsLeftOutAndTheRestKept) {
  TimingResult result{{1, "h100", selection_options(), {"a.pet", "b.pet"}}, {{{5, 6, 7}, {}}, {{3, 3, 4}, {}}}, {"", ""}, 2.5};
  std::string text = device_line({"NVIDIA H200", "pet-gpu tf32 math (...), kernels 0"}) + result_line(result);
  TimingResults read = parse_results(text + result_line(result).substr(0, 40), "cut.jsonl");
  EXPECT_EQ(read.device.card, "NVIDIA H200");
  ASSERT_EQ(read.results.size(), 1u);
  EXPECT_EQ(read.results[0].timings[1].runs_us, (std::vector<double>{3, 3, 4}));
  EXPECT_EQ(read.results[0].seconds, 2.5);
  EXPECT_EQ(read.stopped, "") << "a cut run has no stop line";
  EXPECT_THROW(parse_results(result_line(result), "headless.jsonl"), UserError);
  std::string negative = result_line(result);
  negative.replace(negative.find("\"seconds\":2.5"), 13, "\"seconds\":-1");
  try {
    parse_results(device_line({"NVIDIA H200", "pet-gpu"}) + negative, "negative.jsonl");
    FAIL() << "a negative request time was read";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "negative.jsonl:2: \"seconds\" is a non-negative number");
  }
}

TEST(RecordingRuntime, RecordsEachRequestOnceAndAnswersNotMeasured) {
  RecordingRuntime recording("h100");
  std::vector<ModelBytes> models = {serialize_onnx(parse_graph(kConvRelu)), serialize_onnx(parse_graph(kRelu))};
  std::vector<Timing> timings = recording.time_models(models, selection_options());
  ASSERT_EQ(timings.size(), 2u);
  EXPECT_FALSE(timings[0].measured());
  EXPECT_FALSE(recording.times());
  recording.time_models(models, selection_options());  // asked again: recorded once
  ASSERT_EQ(recording.requests().size(), 1u);
  std::string misses = (pet::testing::private_temp_dir() / "recorded.jsonl").string();
  recording.write(misses);
  std::vector<TimingRequest> read = read_requests(misses);
  ASSERT_EQ(read.size(), 1u);
  Graph conv = parse_graph(read_whole_file(models_folder(misses) + "/" + read[0].models[0], "model"));
  EXPECT_EQ(conv.nodes().size(), 2u);
  EXPECT_EQ(conv.nodes()[0].name, parse_graph(kConvRelu).nodes()[0].name) << "node names travel for the per-node rows";
}

// A misses file of `count` selection requests of the Relu model (keys "model 0", ...), written to
// `name` in the test's folder; its path.
std::string recorded_selections(const std::string& name, int count) {
  RecordingRuntime recording("h100");
  std::string model = serialize_onnx(parse_graph(kRelu));
  for (int r = 0; r < count; ++r) {
    TimingOptions options = selection_options();
    options.purpose.keys = {"model " + std::to_string(r)};
    recording.time_models({model}, options);
  }
  std::string misses = (pet::testing::private_temp_dir() / name).string();
  recording.write(misses);
  return misses;
}

TEST(RequestRunner, TimesRequestsInOrderAndStopsCleanlyAtTheDeadline) {
  std::string misses = recorded_selections("four.jsonl", 4);
  pet::testing::FakeGpuRuntime fake;
  std::ostringstream out;
  double now = 0;
  MeasureOptions options{.deadline_s = 25, .elapsed_s = [&now] { return now += 10; }, .timed_before = {}};  // 10 s per request
  MeasureOutcome outcome =
      measure_requests(fake, read_requests(misses), models_folder(misses), {"card", "fake"}, out, options);
  EXPECT_EQ(outcome.timed, 2);
  EXPECT_EQ(outcome.left, 2);
  EXPECT_EQ(outcome.stopped, "deadline of 25 s reached: 2 of 4 requests timed, 2 left");
  TimingResults results = parse_results(out.str(), "out");
  ASSERT_EQ(results.results.size(), 2u);
  EXPECT_EQ(results.results[1].request.options.purpose.keys, (std::vector<std::string>{"model 1"}));
  EXPECT_EQ(results.results[0].timings[0].runs_us.size(), 3u);
  EXPECT_EQ(results.stopped, outcome.stopped);
  EXPECT_EQ(fake.calls, 2);
  // Each request's wall time there is in its result line, and the run sums them by kind: what a
  // session reads to plan its next measure stage.
  EXPECT_EQ(results.results[0].seconds, 10);
  EXPECT_NE(out.str().find(R"("seconds":10.0)"), std::string::npos) << out.str();
  EXPECT_EQ(by_kind_text(outcome), "selection 2 in 20.0 s");
  EXPECT_EQ(by_kind_text(MeasureOutcome{}), "none");
}

// The next request's models are read while the runtime times the one before, yet a model file that
// cannot be read still fails only when its request is reached, after the earlier results are out.
TEST(RequestRunner, AModelThatCannotBeReadFailsWhenItsRequestIsReached) {
  RecordingRuntime recording("h100");
  for (const char* text : {kRelu, kConvRelu}) {  // two models, so two files
    Graph graph = parse_graph(text);
    TimingOptions options = selection_options();
    options.purpose.keys = {"model " + graph.name};
    recording.time_models({serialize_onnx(graph)}, options);
  }
  std::filesystem::path misses = pet::testing::private_temp_dir() / "unreadable" / "two.jsonl";
  std::filesystem::create_directories(misses.parent_path());
  recording.write(misses.string());
  std::vector<TimingRequest> requests = read_requests(misses.string());
  ASSERT_EQ(requests.size(), 2u);
  std::filesystem::remove(std::filesystem::path(models_folder(misses.string())) / requests[1].models.at(0));
  pet::testing::FakeGpuRuntime fake;
  std::ostringstream out;
  EXPECT_THROW(measure_requests(fake, requests, models_folder(misses.string()), {"card", "fake"}, out, {}), UserError);
  EXPECT_EQ(parse_results(out.str(), "out").results.size(), 1u) << "the first request's result is written first";
  EXPECT_EQ(fake.calls, 1);
}

// A second run on the same misses file continues where the first stopped: the requests the first
// timed are left out, and the results of another misses file or another card are refused.
TEST(RequestRunner, ASecondRunLeavesOutWhatAnEarlierRunTimed) {
  std::string misses = recorded_selections("continued.jsonl", 3);
  std::vector<TimingRequest> requests = read_requests(misses);
  pet::testing::FakeGpuRuntime fake;
  MeasuringDevice device{"card", "fake"};
  std::ostringstream first;
  double now = 0;
  measure_requests(fake, requests, models_folder(misses), device, first,
                   {.deadline_s = 15, .elapsed_s = [&now] { return now += 10; }, .timed_before = {}});  // request 1 only
  std::string earlier = write("continued.first.jsonl", first.str());

  MeasureOptions options;
  options.timed_before = earlier_timings({earlier}, requests, device);
  EXPECT_EQ(options.timed_before, (std::set<int>{1}));
  std::ostringstream second;
  MeasureOutcome outcome = measure_requests(fake, requests, models_folder(misses), device, second, options);
  EXPECT_EQ(outcome.stopped, "all 2 requests timed (1 timed by an earlier run)");
  TimingResults results = parse_results(second.str(), "second");
  ASSERT_EQ(results.results.size(), 2u);
  EXPECT_EQ(results.results[0].request.id, 2);

  EXPECT_EQ(pet::testing::user_error_message([&] { earlier_timings({earlier}, requests, {"another card", "fake"}); }),
            "--skip-timed '" + earlier + "' was timed on card (fake), this run on another card (fake); its timings "
            "are not this run's to continue");
  std::vector<TimingRequest> other = requests;
  other[0].options.runs += 1;
  EXPECT_EQ(pet::testing::user_error_message([&] { earlier_timings({earlier}, other, device); }),
            "--skip-timed '" + earlier + "' answers another misses file: its request 1 is not this file's; pass "
            "the results of a run on the same kit");
}

// A runtime that refuses every model with a Conv, as pet-gpu refuses a model it cannot load.
class ConvRefusingRuntime : public pet::testing::FakeGpuRuntime {
 public:
  std::vector<Timing> time_models(const std::vector<ModelBytes>& models, const TimingOptions& options) override {
    for (size_t i = 0; i < models.size(); ++i)
      if (models[i].with_bytes([](const std::string& bytes) { return bytes.find("Conv") != std::string::npos; }))
        throw ModelRejected(i, "pet-gpu could not load model " + std::to_string(i) + ": cuDNN refused it");
    return FakeGpuRuntime::time_models(models, options);
  }
};

// A model the runtime refuses is that request's data: the run goes on, and says how many it refused.
TEST(RequestRunner, RefusedModelsAreCountedAndTheRunGoesOn) {
  RecordingRuntime recording("h100");
  TimingOptions groups = selection_options();
  groups.purpose = {"kernel-groups", {"group conv", "group relu"}, FirstModel::like_the_others};
  recording.time_models({serialize_onnx(parse_graph(kConvRelu)), serialize_onnx(parse_graph(kRelu))}, groups);
  TimingOptions relu = selection_options();
  relu.purpose.keys = {"model relu"};
  recording.time_models({serialize_onnx(parse_graph(kRelu))}, relu);
  std::string misses = (pet::testing::private_temp_dir() / "refusing.jsonl").string();
  recording.write(misses);
  ConvRefusingRuntime runtime;
  std::ostringstream out;
  MeasureOutcome outcome = measure_requests(runtime, read_requests(misses), models_folder(misses), {"card", "fake"},
                                            out, {});
  EXPECT_EQ(outcome.timed, 2);
  EXPECT_EQ(outcome.refused, 1);
  EXPECT_EQ(outcome.first_refusal, "pet-gpu could not load model 0: cuDNN refused it");
  TimingResults results = parse_results(out.str(), "out");
  ASSERT_EQ(results.results.size(), 2u);
  EXPECT_FALSE(results.results[0].timings[0].measured());
  EXPECT_TRUE(results.results[0].timings[1].measured());
  EXPECT_TRUE(results.results[1].timings[0].measured());
}

}  // namespace
}  // namespace pet::runtime
