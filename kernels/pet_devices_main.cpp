// pet-devices: lists CUDA devices and library versions, then runs the axpy self-test on each.
#include <cstdio>

#include "kernels/devices.h"
#include "kernels/self_test.h"

int main() {
  pet::DeviceReport report = pet::probe_devices();
  std::fputs(pet::format_device_report(report).c_str(), stdout);
  if (report.status.outcome == pet::CudaOutcome::failed) return 1;
  int exit_code = 0;
  for (const pet::GpuDevice& device : report.devices) {
    pet::CudaStatus status = pet::self_test_device(device.index);
    if (status.ok()) {
      std::printf("GPU %d: self-test passed\n", device.index);
    } else {
      std::printf("GPU %d: self-test failed: %s\n", device.index, status.message.c_str());
      exit_code = 1;
    }
  }
  return exit_code;
}
