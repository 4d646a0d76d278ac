// pet-gpu in-process: help, usage errors, and the no-device answers every command gives on a CPU.
#include <gtest/gtest.h>

#include <sstream>

#include "kernels/devices.h"
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
            "pet-gpu: error: 'bench' is not a pet-gpu command; the commands are devices and ceilings (pet-gpu --help)\n");
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

}  // namespace
}  // namespace pet
