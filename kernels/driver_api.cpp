// Driver entry points through the runtime, and the driver's results as CudaStatus.
#include "kernels/driver_api.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace pet {
namespace {

template <typename Function>
CudaStatus entry_point(const char* symbol, Function& function) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  CudaStatus status = cuda_status(
      cudaGetDriverEntryPointByVersion(symbol, &address, 12000, cudaEnableDefault, &found),
      fmt::format("cudaGetDriverEntryPointByVersion({})", symbol));
  if (status.ok() && (found != cudaDriverEntryPointSuccess || address == nullptr))
    status = {CudaOutcome::failed, fmt::format("the CUDA driver has no entry point {}", symbol)};
  function = reinterpret_cast<Function>(address);
  return status;
}

}  // namespace

CudaStatus load_driver_api(DriverApi& api) {
  for (CudaStatus status : {entry_point("cuModuleLoadData", api.module_load_data),
                            entry_point("cuModuleGetFunction", api.module_get_function),
                            entry_point("cuModuleUnload", api.module_unload),
                            entry_point("cuLaunchKernel", api.launch_kernel),
                            entry_point("cuGetErrorName", api.get_error_name)})
    if (!status.ok()) return status;
  return {};
}

CudaStatus driver_status(const DriverApi& api, CUresult result, const std::string& call) {
  if (result == CUDA_SUCCESS) return {};
  const char* name = nullptr;
  api.get_error_name(result, &name);
  return {CudaOutcome::failed,
          fmt::format("{}: {}", call, name != nullptr ? name : std::to_string(static_cast<int>(result)))};
}

}  // namespace pet
