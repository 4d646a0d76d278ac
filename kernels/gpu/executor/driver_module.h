// CUBIN modules loaded once and their kernels launched through driver-API entry points that the
// CUDA runtime hands out (cudaGetDriverEntryPointByVersion), so pet links no libcuda and still
// starts, reporting no device, where there is none.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "kernels/gpu/codegen/kernel_text.h"

namespace pet::gpu {

// One loaded CUBIN; unloaded when destroyed. Needs a current CUDA context (the runtime's primary
// context, made current by cudaSetDevice and a first runtime call).
class DriverModule {
 public:
  // CudaFailure (naming cuModuleLoadData and the driver's error name) when the image is refused.
  explicit DriverModule(const std::string& cubin);
  DriverModule(const DriverModule&) = delete;
  DriverModule& operator=(const DriverModule&) = delete;
  ~DriverModule();

  // The extern "C" __global__ function `name`; CudaFailure when the module has none.
  CUfunction function(const std::string& name) const;

 private:
  CUmodule module_ = nullptr;
};

// Launches `function` on `stream` with one device pointer per kernel parameter, in order.
// CudaFailure naming `kernel` when the launch is refused (a failure inside the kernel shows at the
// next synchronization instead).
void launch_kernel(CUfunction function, const codegen::LaunchShape& launch, const std::vector<void*>& pointers,
                   cudaStream_t stream, const std::string& kernel);

}  // namespace pet::gpu
