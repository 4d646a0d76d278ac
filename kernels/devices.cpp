// Device enumeration through the CUDA runtime, and cuDNN/cuBLAS version queries.
#include "kernels/devices.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <fmt/format.h>

namespace pet {
namespace {

// The CUDA runtime and driver encode versions as 1000*major + 10*minor.
Version from_cuda_encoding(int encoded) { return {encoded / 1000, encoded % 1000 / 10, 0}; }

CudaVersions query_versions() {
  CudaVersions versions;
  int encoded = 0;
  if (cudaRuntimeGetVersion(&encoded) == cudaSuccess) versions.runtime = from_cuda_encoding(encoded);
  encoded = 0;
  if (cudaDriverGetVersion(&encoded) == cudaSuccess) versions.driver = from_cuda_encoding(encoded);
  // cuDNN 9 encodes 10000*major + 100*minor + patch.
  auto cudnn = static_cast<int>(cudnnGetVersion());
  versions.cudnn = {cudnn / 10000, cudnn % 10000 / 100, cudnn % 100};
  cublasGetProperty(MAJOR_VERSION, &versions.cublas.major);
  cublasGetProperty(MINOR_VERSION, &versions.cublas.minor);
  cublasGetProperty(PATCH_LEVEL, &versions.cublas.patch);
  return versions;
}

}  // namespace

DeviceReport probe_devices() {
  DeviceReport report;
  report.versions = query_versions();
  int count = 0;
  report.status = cuda_status(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (report.status.ok() && count == 0) {
    report.status = {CudaOutcome::no_device, "cudaGetDeviceCount: reported 0 devices"};
  }
  for (int index = 0; report.status.ok() && index < count; ++index) {
    cudaDeviceProp props{};
    report.status = cuda_status(cudaGetDeviceProperties(&props, index), "cudaGetDeviceProperties");
    if (report.status.ok()) {
      report.devices.push_back({index, props.name, props.multiProcessorCount, props.totalGlobalMem,
                                props.major, props.minor});
    }
  }
  if (!report.status.ok()) report.devices.clear();
  return report;
}

std::string format_version(const Version& version) {
  return fmt::format("{}.{}.{}", version.major, version.minor, version.patch);
}

std::string format_device_report(const DeviceReport& report) {
  const CudaVersions& v = report.versions;
  std::string driver = v.driver.major == 0 ? "none" : format_version(v.driver);
  std::string text = fmt::format("CUDA runtime {}, driver {}, cuDNN {}, cuBLAS {}\n", format_version(v.runtime),
                                 driver, format_version(v.cudnn), format_version(v.cublas));
  if (report.status.outcome == CudaOutcome::no_device) {
    return text + fmt::format("no CUDA device: {}\n", report.status.message);
  }
  if (!report.status.ok()) return text + fmt::format("CUDA failure: {}\n", report.status.message);
  for (const GpuDevice& device : report.devices) {
    text += fmt::format("GPU {}: {}, sm_{}{}, {} SMs, {:.1f} GiB\n", device.index, device.name,
                        device.compute_major, device.compute_minor, device.sm_count,
                        static_cast<double>(device.memory_bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  return text;
}

}  // namespace pet
