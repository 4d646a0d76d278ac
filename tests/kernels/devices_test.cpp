// Device probe and axpy self-test: coherent everywhere, numerically checked where a GPU exists.
#include <gtest/gtest.h>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cudnn_version.h>

#include <vector>

#include "kernels/devices.h"
#include "kernels/self_test.h"
#include "tests/kernels/device_skip.h"

namespace pet {
namespace {

TEST(Devices, ProbeReportsDevicesOrWhyThereAreNone) {
  DeviceReport report = probe_devices();
  ASSERT_NE(report.status.outcome, CudaOutcome::failed) << report.status.message;
  if (report.status.outcome == CudaOutcome::no_device) {
    EXPECT_FALSE(report.status.message.empty());
    EXPECT_TRUE(report.devices.empty());
    return;
  }
  EXPECT_TRUE(report.status.message.empty());
  ASSERT_FALSE(report.devices.empty());
  for (std::size_t i = 0; i < report.devices.size(); ++i) {
    const GpuDevice& device = report.devices[i];
    EXPECT_EQ(device.index, static_cast<int>(i));
    EXPECT_FALSE(device.name.empty());
    EXPECT_GT(device.sm_count, 0);
    EXPECT_GT(device.memory_bytes, 0u);
    EXPECT_GE(device.compute_major, 7) << device.name;
  }
}

TEST(Devices, LinkedLibrariesMatchTheHeadersWeCompiledAgainst) {
  CudaVersions versions = probe_devices().versions;
  EXPECT_EQ(versions.runtime.major, CUDART_VERSION / 1000);
  EXPECT_EQ(versions.cudnn.major, CUDNN_MAJOR);
  EXPECT_EQ(versions.cublas.major, CUBLAS_VER_MAJOR);
}

TEST(Devices, FormatsOneLinePerDevice) {
  DeviceReport report;
  report.versions = {{13, 0, 0}, {13, 0, 0}, {9, 19, 0}, {13, 1, 0}};
  report.devices = {{0, "NVIDIA H100 80GB HBM3", 132, 85520809984, 9, 0}};
  EXPECT_EQ(format_device_report(report),
            "CUDA runtime 13.0.0, driver 13.0.0, cuDNN 9.19.0, cuBLAS 13.1.0\n"
            "GPU 0: NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.6 GiB\n");
}

TEST(Devices, FormatsTheNoDeviceReasonOnOneLine) {
  DeviceReport report;
  report.versions = {{13, 0, 0}, {0, 0, 0}, {9, 19, 0}, {13, 1, 0}};
  report.status = {CudaOutcome::no_device, "cudaGetDeviceCount: cudaErrorNoDevice (no CUDA-capable device is detected)"};
  EXPECT_EQ(format_device_report(report),
            "CUDA runtime 13.0.0, driver none, cuDNN 9.19.0, cuBLAS 13.1.0\n"
            "no CUDA device: cudaGetDeviceCount: cudaErrorNoDevice (no CUDA-capable device is detected)\n");
}

TEST(SelfTest, AxpyWithoutDeviceSaysSoAndReturnsNothing) {
  DeviceReport report = probe_devices();
  if (report.status.ok()) GTEST_SKIP() << "a CUDA device exists; the no-device path is not reachable";
  std::vector<float> x{1, 2, 3}, y{4, 5, 6};
  AxpyResult result = run_axpy(0, 2.0f, x, y);
  EXPECT_EQ(result.status.outcome, CudaOutcome::no_device) << result.status.message;
  EXPECT_FALSE(result.status.message.empty());
  EXPECT_TRUE(result.y.empty());
}

TEST(SelfTest, AxpyMatchesHostReferenceOnEveryDevice) {
  DeviceReport report = probe_devices();
  PET_SKIP_WITHOUT_DEVICE(report);
  // 1003 elements: not a multiple of the block size, so the kernel's bounds check is exercised.
  std::vector<float> x(1003), y(1003);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.25f * static_cast<float>(i) - 100.0f;
    y[i] = 3.0f - 0.5f * static_cast<float>(i % 17);
  }
  for (const GpuDevice& device : report.devices) {
    AxpyResult result = run_axpy(device.index, -1.5f, x, y);
    ASSERT_TRUE(result.status.ok()) << "GPU " << device.index << ": " << result.status.message;
    ASSERT_EQ(result.y.size(), y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
      EXPECT_FLOAT_EQ(result.y[i], -1.5f * x[i] + y[i]) << "GPU " << device.index << ", element " << i;
    }
  }
}

TEST(SelfTest, BuiltInSelfTestPassesOnEveryDevice) {
  DeviceReport report = probe_devices();
  PET_SKIP_WITHOUT_DEVICE(report);
  for (const GpuDevice& device : report.devices) {
    CudaStatus status = self_test_device(device.index);
    EXPECT_TRUE(status.ok()) << "GPU " << device.index << ": " << status.message;
  }
}

}  // namespace
}  // namespace pet
