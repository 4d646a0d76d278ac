// Enumerates CUDA devices and the versions of the CUDA libraries that pet links against.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/cuda_status.h"

namespace pet {

struct GpuDevice {
  int index = 0;
  std::string name;
  int sm_count = 0;
  std::size_t memory_bytes = 0;
  int compute_major = 0;
  int compute_minor = 0;
};

struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
};

// Library versions are known without a device; the driver's is 0.0.0 when none is installed.
struct CudaVersions {
  Version runtime;
  Version driver;
  Version cudnn;
  Version cublas;
};

struct DeviceReport {
  CudaStatus status;               // no_device on machines without a GPU or driver
  std::vector<GpuDevice> devices;  // empty unless status.ok()
  CudaVersions versions;
};

// Queries the CUDA runtime; never throws for a missing device or driver.
DeviceReport probe_devices();

// The text pet-devices prints: a versions line, then one line per device or one no-device line.
std::string format_device_report(const DeviceReport& report);

std::string format_version(const Version& version);

}  // namespace pet
