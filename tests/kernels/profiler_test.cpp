// pet-profile refuses clearly without a GPU, and on a GPU times a tiny conv into a profile DB.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "kernels/devices.h"
#include "kernels/profiler.h"
#include "search/cost/cost_model.h"
#include "tests/test_temp_dir.h"
#include "tools/profile_command.h"

namespace pet {
namespace {

const char* kTinyConv = R"(graph "tiny" opset 13 {
  input %x : f32[1,8,16,16]
  const %w : f32[16,8,3,3] = random(1)
  const %b : f32[16] = random(2)
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b) : f32[1,16,16,16]
  %z = Relu(%y) : f32[1,16,16,16]
  output %z
})";

bool gpu_present() { return probe_devices().status.ok(); }

std::string tiny_model() {
  std::string path = (testing::private_temp_dir() / "tiny_conv.onnx").string();
  export_onnx(parse_graph(kTinyConv), path);
  return path;
}

TEST(PetProfile, WithoutAGpuRefusesAndSaysWhatStillWorks) {
  DeviceReport report = probe_devices();
  if (report.status.ok()) GTEST_SKIP() << "a GPU is present; the refusal cannot happen here";
  std::string db = (testing::private_temp_dir() / "no_gpu_db.json").string();
  std::ostringstream out, err;
  int status = pet_profile_main({"--device", "h100", "--out", db, tiny_model()}, out, err);
  EXPECT_EQ(status, 2);
  EXPECT_EQ(err.str(), "pet-profile: error: no CUDA device is visible (" + report.status.message +
                           "); profiling needs a GPU. The cost model's analytic estimates work without one "
                           "(pet-opt --target h100).\n");
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(PetProfile, UnknownDeviceIsAUserErrorBeforeTouchingTheGpu) {
  std::ostringstream out, err;
  EXPECT_EQ(pet_profile_main({"--device", "b200", "--out", "db.json", "model.onnx"}, out, err), 2);
  EXPECT_NE(err.str().find("unknown device 'b200'"), std::string::npos) << err.str();
}

TEST(PetProfile, OnAGpuMeasuresATinyConvIntoTheDb) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA device here";
  std::string db = (testing::private_temp_dir() / "gpu_db.json").string();
  std::ostringstream out, err;
  int status = pet_profile_main({"--device", "h100", "--out", db, "--runs", "5", tiny_model()}, out, err);
  ASSERT_EQ(status, 0) << err.str();
  cost::ProfileDb loaded = cost::ProfileDb::load(db);
  Graph graph = parse_graph(kTinyConv);
  std::string conv_key = cost::signature_of(graph, graph.node(0)).key();
  std::optional<double> conv_us = loaded.lookup("h100", conv_key);
  ASSERT_TRUE(conv_us.has_value()) << out.str();
  EXPECT_GT(*conv_us, 0.0);
  EXPECT_LT(*conv_us, 10000.0);
  EXPECT_TRUE(loaded.lookup("h100", cost::signature_of(graph, graph.node(1)).key()).has_value());
  for (const cost::ProfileEntry& entry : loaded.entries()) {
    EXPECT_NE(entry.libraries.find("cuDNN"), std::string::npos);
    EXPECT_EQ(entry.date.size(), 10u);
  }
}

TEST(Profiler, NoGpuMessageSaysWhatWhyAndWhatToDo) {
  CudaStatus status{CudaOutcome::no_device, "cudaGetDeviceCount: cudaErrorNoDevice (no CUDA-capable device is detected)"};
  EXPECT_EQ(no_gpu_message(status),
            "no CUDA device is visible (cudaGetDeviceCount: cudaErrorNoDevice (no CUDA-capable device is detected)); "
            "profiling needs a GPU. The cost model's analytic estimates work without one (pet-opt --target h100).");
}

}  // namespace
}  // namespace pet
