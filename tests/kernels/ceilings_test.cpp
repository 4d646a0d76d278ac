// Event timing's summary, the ceilings' report, and the loaded-library list: exact on any machine,
// measured where a GPU exists.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/ceilings.h"
#include "kernels/devices.h"
#include "kernels/event_timing.h"
#include "kernels/loaded_libraries.h"
#include "tests/kernels/device_skip.h"

namespace pet {
namespace {

TEST(EventTiming, SummaryIsTheMedianAndInterpolatedQuartilesInAnyOrder) {
  RunSummary summary = summarize_runs({9, 1, 5, 3, 7});
  EXPECT_EQ(summary.runs, 5);
  EXPECT_DOUBLE_EQ(summary.median, 5);
  EXPECT_DOUBLE_EQ(summary.q1, 3);
  EXPECT_DOUBLE_EQ(summary.q3, 7);
  RunSummary even = summarize_runs({4, 1, 2, 3});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_DOUBLE_EQ(even.q1, 1.75);
  EXPECT_DOUBLE_EQ(even.q3, 3.25);
  EXPECT_EQ(summarize_runs({}).runs, 0);
}

TEST(Ceilings, ReportHasOneLinePerCeilingThenWhyItStopped) {
  CeilingsReport report;
  report.ceilings = {{"copy d2d", "GB/s", "cudaMemcpyAsync 1.00 GiB", {3012.44, 2990.0, 3020.0, 10}}};
  report.status = {CudaOutcome::failed, "cublasCreate: CUBLAS_STATUS_NOT_INITIALIZED"};
  EXPECT_EQ(format_ceilings(report),
            "copy d2d: 3012.4 GB/s median (quartiles 2990.0 to 3020.0, 10 runs), cudaMemcpyAsync 1.00 GiB\n"
            "CUDA failure: cublasCreate: CUBLAS_STATUS_NOT_INITIALIZED\n");
}

TEST(Ceilings, WithoutADeviceTheReportSaysSoAndMeasuresNothing) {
  DeviceReport devices = probe_devices();
  if (devices.status.ok()) GTEST_SKIP() << "a CUDA device exists; the no-device path is not reachable";
  CeilingsReport report = measure_ceilings(0, {});
  EXPECT_EQ(report.status.outcome, CudaOutcome::no_device) << report.status.message;
  EXPECT_TRUE(report.ceilings.empty());
  EXPECT_EQ(format_ceilings(report).rfind("no CUDA device: ", 0), 0u);
}

TEST(Ceilings, MeasuresCopyAndBothGemmRatesOnTheDevice) {
  DeviceReport devices = probe_devices();
  PET_SKIP_WITHOUT_DEVICE(devices);
  CeilingOptions small;
  small.copy_bytes = 64 << 20;
  small.gemm_size = 1024;
  small.runs = 3;
  small.warmup = 1;
  CeilingsReport report = measure_ceilings(0, small);
  ASSERT_TRUE(report.status.ok()) << report.status.message;
  ASSERT_EQ(report.ceilings.size(), 3u);
  for (const Ceiling& ceiling : report.ceilings) {
    EXPECT_EQ(ceiling.rate.runs, 3) << ceiling.name;
    EXPECT_GT(ceiling.rate.q1, 0) << ceiling.name;
    EXPECT_LE(ceiling.rate.q1, ceiling.rate.median) << ceiling.name;
    EXPECT_LE(ceiling.rate.median, ceiling.rate.q3) << ceiling.name;
  }
}

TEST(LoadedLibraries, NameTheCudaRuntimeThisProcessLoadedWithItsPath) {
  probe_devices();  // loads cudart, cuDNN and cuBLAS
  std::vector<LoadedLibrary> loaded = loaded_cuda_libraries();
  auto cudart = std::find_if(loaded.begin(), loaded.end(),
                             [](const LoadedLibrary& library) { return library.name.starts_with("libcudart.so"); });
  ASSERT_NE(cudart, loaded.end()) << format_loaded_libraries(loaded);
  EXPECT_TRUE(cudart->path.ends_with(cudart->name)) << cudart->path;
  EXPECT_NE(format_loaded_libraries(loaded).find(cudart->name + " " + cudart->path + "\n"), std::string::npos);
}

}  // namespace
}  // namespace pet
