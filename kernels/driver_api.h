// The CUDA driver entry points pet calls, looked up through the CUDA runtime
// (cudaGetDriverEntryPointByVersion), so nothing links libcuda and binaries start, reporting no
// device, on machines without one.
#pragma once

#include <cuda.h>

#include <string>

#include "kernels/cuda_status.h"

namespace pet {

struct DriverApi {
  decltype(&cuModuleLoadData) module_load_data = nullptr;
  decltype(&cuModuleGetFunction) module_get_function = nullptr;
  decltype(&cuModuleUnload) module_unload = nullptr;
  decltype(&cuLaunchKernel) launch_kernel = nullptr;
  decltype(&cuGetErrorName) get_error_name = nullptr;
};

// Fills every entry point; the first one the driver lacks (or the runtime's failure) otherwise.
CudaStatus load_driver_api(DriverApi& api);

// ok for CUDA_SUCCESS, else failed with "CALL: the driver's error name".
CudaStatus driver_status(const DriverApi& api, CUresult result, const std::string& call);

}  // namespace pet
