// pet-gpu in-process: help, usage errors, and the no-device answers every command gives on a CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/executor.h"
#include "core/file_safety.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "kernels/devices.h"
#include "kernels/gpu/executor/reference.h"
#include "kernels/runtime/tensor_wire.h"
#include "tests/scoped_env.h"
#include "tests/test_temp_dir.h"
#include "tools/gpu_command.h"

namespace pet {
namespace {

struct Ran {
  int status = 0;
  std::string out, err;
};

Ran pet_gpu(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = pet_gpu_main(args, out, err);
  return {status, out.str(), err.str()};
}

bool has_device() { return probe_devices().status.ok(); }

// An empty folder of this name under the test's temporary folder.
std::filesystem::path fresh_folder(const std::string& name) {
  std::filesystem::path folder = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

TEST(PetGpu, HelpPrintsTheUsageAndNoArgumentsIsAUsageError) {
  EXPECT_EQ(pet_gpu({"--help"}).out, kPetGpuHelp);
  Ran bare = pet_gpu({});
  EXPECT_EQ(bare.status, 2);
  EXPECT_EQ(bare.out, kPetGpuHelp);
}

TEST(PetGpu, AnUnknownCommandNamesTheCommandsThereAre) {
  Ran ran = pet_gpu({"bench"});
  EXPECT_EQ(ran.status, 2);
  EXPECT_EQ(ran.err,
            "pet-gpu: error: 'bench' is not a pet-gpu command; the commands are devices, ceilings, reference, plan, "
            "check, time, serve, measure and worker (pet-gpu --help)\n");
}

TEST(PetGpu, ACeilingsFlagOutOfRangeIsAUsageError) {
  Ran ran = pet_gpu({"ceilings", "--gemm-size", "8"});
  EXPECT_EQ(ran.status, 2);
  EXPECT_NE(ran.err.find("--gemm-size"), std::string::npos) << ran.err;
}

TEST(PetGpu, DevicesWithoutADeviceSaysSoListsLibrariesAndExitsZero) {
  if (has_device()) GTEST_SKIP() << "a CUDA device exists";
  Ran ran = pet_gpu({"devices"});
  EXPECT_EQ(ran.status, 0) << ran.err;
  EXPECT_NE(ran.out.find("no CUDA device: "), std::string::npos) << ran.out;
  EXPECT_NE(ran.out.find("NVRTC "), std::string::npos) << ran.out;
  EXPECT_NE(ran.out.find("loaded libraries:\nlibcudart.so"), std::string::npos) << ran.out;
}

TEST(PetGpu, MeasureWithoutADeviceFailsSayingSoAndWritesNothing) {
  if (has_device()) GTEST_SKIP() << "a CUDA device exists";
  std::filesystem::path folder = testing::private_temp_dir();
  std::ofstream(folder / "misses.jsonl")
      << R"({"id":1,"target":"h100","kind":"selection","keys":["model a"],"first_is_reference":true,"threads":1,)"
      << R"("warmup":2,"runs":10,"per_node":false,"seed":2026,"models":["a.pet"]})" << "\n";
  std::filesystem::remove(folder / "results.jsonl");
  Ran ran = pet_gpu({"measure", (folder / "misses.jsonl").string(), "--deadline", "30", "--out",
                     (folder / "results.jsonl").string()});
  EXPECT_EQ(ran.status, 2);
  EXPECT_EQ(ran.err.rfind("pet-gpu: error: no CUDA device: ", 0), 0u) << ran.err;
  EXPECT_NE(ran.err.find("pet-gpu measure times requests on a GPU machine (the measure stage of "
                         "scripts/device/session.sh)"),
            std::string::npos)
      << ran.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "results.jsonl"));
}

TEST(PetGpu, MeasureNeedsItsOutputAndAPositiveDeadline) {
  EXPECT_EQ(pet_gpu({"measure", "misses.jsonl"}).err,
            "pet-gpu: error: pet-gpu measure needs --out RESULTS, the file the timings are written to\n");
  EXPECT_EQ(pet_gpu({"measure", "misses.jsonl", "--out", "r.jsonl", "--deadline", "0"}).err,
            "pet-gpu: error: --deadline must be a positive number of seconds\n");
}

TEST(PetGpu, CeilingsWithoutADeviceSaysSoAndExitsZero) {
  if (has_device()) GTEST_SKIP() << "a CUDA device exists";
  Ran ran = pet_gpu({"ceilings"});
  EXPECT_EQ(ran.status, 0) << ran.err;
  EXPECT_EQ(ran.out.rfind("no CUDA device: ", 0), 0u) << ran.out;
}

TEST(PetGpu, DevicesOnADevicePassesTheSelfTest) {
  if (!has_device()) GTEST_SKIP() << "no CUDA device here";
  Ran ran = pet_gpu({"devices"});
  EXPECT_EQ(ran.status, 0) << ran.out << ran.err;
  EXPECT_NE(ran.out.find("GPU 0: self-test passed"), std::string::npos) << ran.out;
}

TEST(PetGpu, WorkerWithoutADeviceAnswersEveryRequestWithThatRefusal) {
  if (has_device()) GTEST_SKIP() << "a CUDA device exists";
  std::istringstream in("{\"version\": true}\n{\"models\": []}\n");
  std::ostringstream out, err;
  EXPECT_EQ(pet_gpu_main({"worker"}, in, out, err), 0) << err.str();
  std::istringstream replies(out.str());
  int answered = 0;
  for (std::string line; std::getline(replies, line); ++answered) {
    nlohmann::json reply = nlohmann::json::parse(line);
    EXPECT_EQ(reply["ok"], false);
    EXPECT_EQ(reply["index"], -1);
    EXPECT_EQ(reply["error"].get<std::string>().rfind("no CUDA device: ", 0), 0u) << line;
  }
  EXPECT_EQ(answered, 2);
}

// pet-opt --live's runtime on the card: the version reply names the card the DB is keyed by, a
// timing request gets its runs (the model with its weights and weight-free, as pet-opt sends it),
// a run request the outputs, in the worker's TF32; as it ends, the worker logs its activity.
TEST(PetGpu, WorkerOnADeviceNamesItsCardTimesAndRunsAModel) {
  if (!has_device()) GTEST_SKIP() << "no CUDA device here";
  Graph graph = parse_graph(R"(graph "conv_relu" opset 13 {
  input %x : f32[1,8,16,16]
  const %w : f32[16,8,3,3] = random(1, 0.2)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,16,16,16]
  %y = Relu(%c) : f32[1,16,16,16]
  output %y
})");
  std::filesystem::path model = testing::private_temp_dir() / "worker_conv_relu.onnx";
  std::filesystem::path weight_free = testing::private_temp_dir() / "worker_conv_relu_weight_free.onnx";
  std::filesystem::path log = testing::private_temp_dir() / "worker_activity.txt";
  write_file_atomically(model.string(), serialize_onnx(graph, {}), "a test model");
  write_file_atomically(weight_free.string(), serialize_onnx(graph, {.weight_free = true}), "a test model");
  std::filesystem::remove(log);
  std::vector<Tensor> inputs = random_inputs(graph, 3);
  nlohmann::json run = {{"run", {{"model", model.string()}, {"threads", 1}, {"inputs", {runtime::tensor_to_wire(inputs[0])}}}}};
  std::istringstream in(
      "{\"version\": true}\n" +
      nlohmann::json({{"models", {model.string(), weight_free.string()}}, {"warmup", 2}, {"runs", 5}}).dump() + "\n" +
      run.dump() + "\n");
  std::ostringstream out, err;
  {
    testing::ScopedEnv activity("PET_GPU_ACTIVITY_LOG", log.c_str());
    ASSERT_EQ(pet_gpu_main({"worker"}, in, out, err), 0) << err.str();
  }
  std::string logged = read_whole_file(log.string(), "activity log");
  EXPECT_EQ(logged.rfind("pet-gpu worker ", 0), 0u) << logged;
  EXPECT_NE(logged.find(" loads, mean "), std::string::npos) << logged;
  EXPECT_NE(logged.find("; weights filled: "), std::string::npos) << logged;
  std::istringstream lines(out.str());
  std::vector<nlohmann::json> replies;
  for (std::string line; std::getline(lines, line);) replies.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(replies.size(), 3u) << out.str();
  EXPECT_EQ(replies[0]["card"], probe_devices().devices.at(0).name);
  EXPECT_EQ(replies[0]["precision"], "tf32");
  EXPECT_EQ(replies[0]["version"].get<std::string>().rfind("pet-gpu tf32 math (cuDNN ", 0), 0u) << replies[0];
  ASSERT_EQ(replies[1]["ok"], true) << replies[1];
  ASSERT_EQ(replies[1]["timings"].size(), 2u);
  for (const nlohmann::json& timing : replies[1]["timings"]) {
    ASSERT_EQ(timing["runs_us"].size(), 5u);
    for (double us : timing["runs_us"]) EXPECT_GT(us, 0);
  }
  ASSERT_EQ(replies[2]["ok"], true) << replies[2];
  Tensor output = runtime::tensor_from_wire(replies[2]["outputs"][0]);
  Tensor expected = execute(graph, inputs)[0];
  double error = 0, norm = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    error += (output.f32()[i] - expected.f32()[i]) * (output.f32()[i] - expected.f32()[i]);
    norm += expected.f32()[i] * expected.f32()[i];
  }
  EXPECT_LT(std::sqrt(error / norm), 1e-2) << "TF32's relative L2 error";
}

// Before: a model's weights had to travel to the GPU machine. After: reference --weight-free writes
// a model of a few lines whose weights the parser regenerates, and references computed from it.
TEST(PetGpu, ReferenceWeightFreeWritesAModelThatRegeneratesItsOwnReferences) {
  namespace fs = std::filesystem;
  fs::path folder = fresh_folder("pet_gpu_weight_free");
  fs::path model = folder / "conv.pet";
  std::ofstream(model) << R"(graph "conv" opset 13 {
  input %x : f32[1,2,6,6]
  const %w : f32[3,2,3,3] = random(11, 0.25)
  const %b : f32[3] = [0.1,0.2,0.3]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b) : f32[1,3,6,6]
  %y = Relu(%c) : f32[1,3,6,6]
  output %y
}
)";
  fs::path out = folder / "refs";
  Ran ran = pet_gpu({"reference", model.string(), "--out", out.string(), "--weight-free", "--seed", "5"});
  ASSERT_EQ(ran.status, 0) << ran.err;
  std::ifstream written(out / "model.pet");
  std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("const %w : f32[3,2,3,3] = random("), std::string::npos) << text;
  EXPECT_NE(text.find("const %b : f32[3] = [0.1,0.2,0.3]"), std::string::npos) << text;
  gpu::ReferenceData expected = gpu::compute_reference(parse_graph(text), 5);
  gpu::ReferenceData read = gpu::read_reference(out.string());
  ASSERT_EQ(read.outputs.size(), 1u);
  EXPECT_EQ(read.outputs[0].f32()[0], expected.outputs[0].f32()[0]);
  EXPECT_EQ(read.outputs[0].content_hash(), expected.outputs[0].content_hash());
}

// plan needs no device: each step with what runs it (a GEMM's bias and residual in its epilogue
// and C, a generated kernel's launch), then the counts.
TEST(PetGpu, PlanSaysWhatRunsEachStepWithoutADevice) {
  std::filesystem::path folder = fresh_folder("pet_gpu_plan");
  std::filesystem::path model = folder / "block.pet";
  std::ofstream(model) << R"(graph "block" opset 13 {
  input %x : f32[2,4,8]
  const %w : f32[8,8] = random(11)
  const %b : f32[8] = random(12)
  %m = MatMul(%x, %w) : f32[2,4,8]
  %a = Add(%m, %b) : f32[2,4,8]
  %r = Add(%a, %x) : f32[2,4,8]
  %y = Sigmoid(%r) : f32[2,4,8]
  output %y
}
)";
  Ran ran = pet_gpu({"plan", model.string()});
  ASSERT_EQ(ran.status, 0) << ran.err;
  std::vector<std::string> lines;
  std::istringstream text(ran.out);
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << ran.out;
  EXPECT_EQ(lines[0], "model 'block' as pet-gpu runs it, decided without a device (the algorithm or engine of each");
  EXPECT_EQ(lines[2].rfind("step 0 (cublaslt-gemm, node 'm', op MatMul) + 2 nodes: cuBLASLt m 8 n 8 k 8 batch 1 ", 0), 0u)
      << lines[2];
  EXPECT_NE(lines[2].find(" c true bias true relu false"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3].rfind("step 1 (elementwise, node 'y', op Sigmoid): kernel pet_gpu_elementwise_", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4],
            "2 steps (1 cuBLASLt GEMMs, 1 generated kernels, 0 cuDNN convolutions, 0 transposes folded into GEMMs); "
            "1 distinct own kernels; activation arena 0.0 MiB");
  Ran refused = pet_gpu({"plan", (folder / "missing.pet").string()});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("missing.pet"), std::string::npos) << refused.err;
}

// serve's requests, read without a device: "time RUNS WARMUP" with whole numbers in range, blanks
// between the words; anything else is no request.
TEST(PetGpu, ServeReadsTimeRequestsAndNothingElse) {
  auto parsed = [](const std::string& line) {
    std::optional<ServeTimeRequest> request = parse_serve_request(line);
    return request ? std::to_string(request->runs) + "/" + std::to_string(request->warmup) : "none";
  };
  EXPECT_EQ(parsed("time 30 5"), "30/5");
  EXPECT_EQ(parsed("  time  1   0 "), "1/0");
  for (const char* line : {"time 0 5", "time 5 -1", "time 5", "time 5 1 x", "time 5x 1", "time 5 1.5", "sleep 3",
                           "", "quit", "time 99999999999 1"})
    EXPECT_EQ(parsed(line), "none") << line;
}

}  // namespace
}  // namespace pet
