// pet-gpu in-process: help, usage errors, and the no-device answers every command gives on a CPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text_ir.h"
#include "kernels/devices.h"
#include "kernels/gpu/executor/reference.h"
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
            "pet-gpu: error: 'bench' is not a pet-gpu command; the commands are devices, ceilings, reference, check, "
            "time, serve and measure (pet-gpu --help)\n");
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

// Before: a model's weights had to travel to the GPU machine. After: reference --weight-free writes
// a model of a few lines whose weights the parser regenerates, and references computed from it.
TEST(PetGpu, ReferenceWeightFreeWritesAModelThatRegeneratesItsOwnReferences) {
  namespace fs = std::filesystem;
  fs::path folder = fs::path(::testing::TempDir()) / "pet_gpu_weight_free";
  fs::remove_all(folder);
  fs::create_directories(folder);
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
