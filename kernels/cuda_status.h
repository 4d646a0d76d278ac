// Sorts the outcome of CUDA runtime calls into ok, no usable device here, or a real failure.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

namespace pet {

// no_device is an expected state (CPU-only machines, CI), not an error: callers report it and
// carry on; only `failed` makes a tool exit non-zero.
enum class CudaOutcome { ok, no_device, failed };

struct CudaStatus {
  CudaOutcome outcome = CudaOutcome::ok;
  std::string message;  // empty when ok; else the failing call with CUDA's error name and text

  bool ok() const { return outcome == CudaOutcome::ok; }
};

// A missing driver reads as "insufficient driver", so both mean "no device", not "broken".
inline CudaStatus cuda_status(cudaError_t error, std::string_view call) {
  if (error == cudaSuccess) return {};
  bool absent = error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver;
  return {absent ? CudaOutcome::no_device : CudaOutcome::failed,
          std::string(call) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")"};
}

}  // namespace pet
