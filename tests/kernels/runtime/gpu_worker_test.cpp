// pet-gpu's worker protocol without a GPU: the worker loop over the fake pet-gpu in-process, and
// pet-opt's client (GpuWorkerRuntime) talking to the fake worker process PET_GPU names.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/executor.h"
#include "core/file_lock.h"
#include "core/file_safety.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "kernels/runtime/gpu_kernels_version.h"
#include "kernels/runtime/gpu_worker_runtime.h"
#include "kernels/runtime/tensor_wire.h"
#include "kernels/runtime/worker_server.h"
#include "tests/kernels/runtime/fake_gpu_runtime.h"
#include "tests/kernels/runtime/runtime_test_models.h"
#include "tests/scoped_env.h"
#include "tests/test_temp_dir.h"

namespace pet::runtime {
namespace {

using nlohmann::json;
using testing::ScopedEnv;

const char* kRelu = R"(graph "relu" opset 13 {
  input %x : f32[2,3000]
  %z = Relu(%x) : f32[2,3000]
  output %z
})";

std::string model_file(const std::string& name, const std::string& bytes) {
  std::string path = (testing::private_temp_dir() / name).string();
  write_file_atomically(path, bytes, "a test model");
  return path;
}

const json kVersion = {{"ok", true}, {"version", "v"}, {"card", "NVIDIA H200 (test double)"}, {"precision", "tf32"}};

std::vector<json> served(Runtime& runtime, const std::string& lines) {
  std::istringstream in(lines);
  std::ostringstream out;
  serve_worker(runtime, kVersion, in, out);
  std::vector<json> replies;
  std::istringstream reply_lines(out.str());
  for (std::string line; std::getline(reply_lines, line);) replies.push_back(json::parse(line));
  return replies;
}

TEST(WorkerServer, AnswersTheVersionATimingAndARunOneLineEach) {
  testing::FakeGpuRuntime fake;
  std::string add_relu = model_file("add_relu.onnx", serialized(kAddRelu));
  std::string relu = model_file("relu.onnx", serialized(kRelu));
  Tensor input = Tensor::f32({1, 64}, std::vector<float>(64, -0.25f));
  json run = {{"run", {{"model", add_relu}, {"threads", 1}, {"inputs", {tensor_to_wire(input)}}}}};
  std::vector<json> replies = served(
      fake, "{\"version\": true}\n\n" +
                json({{"models", {add_relu, relu}}, {"warmup", 1}, {"runs", 3}, {"per_node", true}}).dump() + "\n" +
                run.dump() + "\n");
  ASSERT_EQ(replies.size(), 3u) << "the blank line is no request";
  EXPECT_EQ(replies[0], kVersion);
  // The fake's rule: 5 us per node plus 1 us per thousand output elements.
  EXPECT_EQ(replies[1].dump(),
            json({{"ok", true},
                  {"timings",
                   {{{"runs_us", {10.128, 10.128, 10.128}},
                     {"nodes",
                      {{{"name", "y"}, {"op", "Add"}, {"kernel", "fake"}, {"us", 5.064}},
                       {{"name", "z"}, {"op", "Relu"}, {"kernel", "fake"}, {"us", 5.064}}}}},
                    {{"runs_us", {11.0, 11.0, 11.0}},
                     {"nodes", {{{"name", "z"}, {"op", "Relu"}, {"kernel", "fake"}, {"us", 11.0}}}}}}}})
                .dump());
  ASSERT_EQ(replies[2]["ok"], true);
  Tensor expected = execute(parse_graph(kAddRelu), {input})[0];
  EXPECT_TRUE(tensor_from_wire(replies[2]["outputs"][0]).same_content(expected));
}

TEST(WorkerServer, ARefusedModelIsItsIndexAndABadRequestIsMinusOneAndTheWorkerGoesOn) {
  testing::FakeGpuRuntime fake;
  std::string good = model_file("good.onnx", serialized(kRelu));
  std::string bad = model_file("bad.onnx", "not a model");
  std::vector<json> replies = served(fake, json({{"models", {good, bad}}}).dump() + "\n[1, 2]\n" +
                                               R"({"models": 3})" + "\n" +
                                               json({{"models", {good}}, {"runs", 0}}).dump() + "\n" +
                                               json({{"models", {good}}, {"runs", 2}}).dump() + "\n");
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(replies[0]["ok"], false);
  EXPECT_EQ(replies[0]["index"], 1);
  EXPECT_EQ(replies[0]["error"].get<std::string>().rfind("the fake pet-gpu refuses it: ", 0), 0u) << replies[0];
  EXPECT_FALSE(replies[0].contains("others")) << "one refusal: no others";
  EXPECT_EQ(replies[1], json({{"ok", false}, {"index", -1}, {"error", "malformed request: a request must be a JSON object"}}));
  EXPECT_EQ(replies[2]["index"], -1);
  EXPECT_EQ(replies[2]["error"].get<std::string>().rfind("malformed request: ", 0), 0u) << replies[2];
  EXPECT_EQ(replies[3], json({{"ok", false}, {"index", -1}, {"error", "malformed request: threads 1, warmup 3, runs 0"}}));
  EXPECT_EQ(replies[4]["ok"], true) << "the worker answers after every refusal";
}

TEST(WorkerServer, AWorkerWithoutARuntimeRefusesEveryRequestWithItsReason) {
  std::istringstream in("{\"version\": true}\n{\"models\": []}\n");
  std::ostringstream out;
  refuse_worker("no CUDA device: none here", in, out);
  EXPECT_EQ(out.str(),
            "{\"error\":\"no CUDA device: none here\",\"index\":-1,\"ok\":false}\n"
            "{\"error\":\"no CUDA device: none here\",\"index\":-1,\"ok\":false}\n");
}

// One timing request of a model file served on `runtime` while the test holds the lock file
// `lock`: `while_held(answered)` looks at what the worker did in its first 200 ms; then the lock is
// let go and the worker's reply returned.
json served_while_the_lock_is_held(Runtime& runtime, const std::string& model, const std::string& lock,
                                   const std::function<void(bool answered)>& while_held) {
  std::istringstream in(json({{"models", {model}}, {"runs", 1}}).dump() + "\n");
  std::ostringstream out;
  std::atomic<bool> answered = false;
  std::optional<FileLock> holder(std::in_place, lock, "the test's hold");
  std::thread worker([&] {
    serve_worker(runtime, kVersion, in, out, lock);
    answered = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  while_held(answered);
  holder.reset();
  worker.join();
  return json::parse(out.str());
}

// Before: two pet-opt --live runs on one card timed at once, each slowing the other. After: with a
// GPU lock file, a worker answers only while it holds the lock; it imports the request's models
// (host work) while another holds it, and says how long it waited.
TEST(WorkerServer, WithAGpuLockARequestWaitsForTheLockHolder) {
  testing::FakeGpuRuntime fake;
  std::string relu = model_file("locked_relu.onnx", serialized(kRelu));
  std::string lock = (testing::private_temp_dir() / "gpu.lock").string();
  json reply = served_while_the_lock_is_held(fake, relu, lock, [&](bool answered) {
    EXPECT_FALSE(answered) << "the worker answered while another held the GPU";
    EXPECT_EQ(fake.imported_models.load(), 1) << "the worker waited for the GPU before importing its model";
  });
  EXPECT_EQ(reply["ok"], true);
  std::string activity = fake.activity();
  double waited = -1;
  ASSERT_EQ(std::sscanf(activity.substr(activity.find("GPU lock: ")).c_str(), "GPU lock: 1 holds, waited %lf s", &waited),
            1)
      << activity;
  EXPECT_GE(waited, 0.1) << activity;
}

// A runtime that cannot tell its device work from its host work (the default) is held around each
// whole request, as before.
TEST(WorkerServer, ARuntimeThatDoesNotShareTheDeviceIsHeldAroundWholeRequests) {
  struct WholeCalls : testing::FakeGpuRuntime {
    bool share_device(const SharedDevice&) override { return false; }
  } fake;
  std::string relu = model_file("whole_relu.onnx", serialized(kRelu));
  std::string lock = (testing::private_temp_dir() / "whole.lock").string();
  json reply = served_while_the_lock_is_held(fake, relu, lock, [&](bool answered) {
    EXPECT_FALSE(answered);
    EXPECT_EQ(fake.imported_models.load(), 0) << "the request began before the lock was taken";
  });
  EXPECT_EQ(reply["ok"], true);
  EXPECT_EQ(fake.activity().find("GPU lock"), std::string::npos) << fake.activity();
}

TEST(GpuWorkerRuntime, TimesRefusesAndRunsThroughTheWorkerProcess) {
  ScopedEnv worker("PET_GPU", PET_FAKE_GPU_WORKER);
  ScopedEnv card("PET_FAKE_GPU_CARD", nullptr);
  std::unique_ptr<GpuWorkerRuntime> gpu = open_gpu_worker_runtime();
  EXPECT_EQ(gpu->target(), "pet-gpu");
  EXPECT_EQ(gpu->card(), "NVIDIA H200 (test double)");
  EXPECT_EQ(gpu->version(), "fake pet-gpu tf32 math (a test double), " + gpu_kernels_tag());
  EXPECT_EQ(gpu->compute_precision(), "tf32");
  TimingOptions options;
  options.runs = 4;
  std::vector<Timing> timings = gpu->time_models({serialized(kAddRelu), serialized(kRelu)}, options);
  ASSERT_EQ(timings.size(), 2u);
  EXPECT_EQ(timings[0].runs_us, std::vector<double>(4, 10.128));
  EXPECT_EQ(timings[1].runs_us, std::vector<double>(4, 11.0));
  try {
    gpu->time_models({serialized(kRelu), std::string("not a model"), std::string("nor this")}, options);
    FAIL() << "a malformed model was timed";
  } catch (const ModelRejected& refused) {  // both refusals in one reply
    EXPECT_EQ(refused.index(), 1u);
    EXPECT_EQ(std::string(refused.what()).rfind("model 1 was rejected by pet-gpu: the fake pet-gpu refuses it: ", 0),
              0u)
        << refused.what();
    ASSERT_EQ(refused.others().size(), 1u);
    EXPECT_EQ(refused.others()[0].index, 2u);
    const std::string& other = refused.others()[0].message;
    EXPECT_EQ(other.rfind("model 2 was rejected by pet-gpu: the fake pet-gpu refuses it: ", 0), 0u) << other;
  }
  Tensor input = Tensor::f32({1, 64}, std::vector<float>(64, 0.5f));
  std::vector<Tensor> outputs = gpu->run_model(serialized(kAddRelu), {input}, 1);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_TRUE(outputs[0].same_content(execute(parse_graph(kAddRelu), {input})[0]));
  EXPECT_EQ(open_gpu_worker_runtime(/*strict=*/true)->compute_precision(), "f32");
}

TEST(GpuWorkerRuntime, AWorkerWithoutADeviceOrAProgramIsAUserErrorGivingTheReason) {
  ScopedEnv worker("PET_GPU", PET_FAKE_GPU_WORKER);
  {
    ScopedEnv refuse("PET_FAKE_GPU_REFUSE", "no CUDA device: cudaGetDeviceCount: no driver");
    try {
      open_gpu_worker_runtime();
      FAIL() << "a worker without a device opened";
    } catch (const UserError& error) {
      EXPECT_EQ(std::string(error.what()),
                std::string("pet-gpu's worker ('") + PET_FAKE_GPU_WORKER +
                    " worker') is not available: no CUDA device: cudaGetDeviceCount: no driver. --live times on this "
                    "machine's GPU through pet-gpu, which a build with -DPET_BUILD_CUDA=ON makes beside pet-opt (set "
                    "PET_GPU to its path); without --live a GPU target replays its profile DB");
    }
  }
  ScopedEnv missing("PET_GPU", "/nonexistent/pet-gpu");
  try {
    open_gpu_worker_runtime();
    FAIL() << "a missing pet-gpu opened";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("('/nonexistent/pet-gpu worker') is not available: it could not be "
                                             "started (No such file or directory)"),
              std::string::npos)
        << error.what();
  }
}

TEST(GpuWorkerRuntime, ACardIsATargetWhenAWordOfItsNameIsTheTargetsName) {
  EXPECT_TRUE(card_is_target("NVIDIA H100 80GB HBM3", "h100"));
  EXPECT_TRUE(card_is_target("NVIDIA H200", "h200"));
  EXPECT_TRUE(card_is_target("NVIDIA H100 PCIe", "h100"));
  EXPECT_FALSE(card_is_target("NVIDIA H200", "h100"));
  EXPECT_FALSE(card_is_target("NVIDIA GH200 480GB", "h200"));
  EXPECT_FALSE(card_is_target("NVIDIA A100-SXM4-80GB", "h100"));
}

}  // namespace
}  // namespace pet::runtime
