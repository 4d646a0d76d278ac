// The driver entry points, looked up once per process through the runtime, and the module and
// launch calls made through them.
#include "kernels/gpu/executor/driver_module.h"

#include <fmt/format.h>

#include <limits>

#include "core/error.h"
#include "kernels/gpu/executor/cuda_check.h"

namespace pet::gpu {
namespace {

struct DriverApi {
  decltype(&cuModuleLoadData) module_load_data = nullptr;
  decltype(&cuModuleGetFunction) module_get_function = nullptr;
  decltype(&cuModuleUnload) module_unload = nullptr;
  decltype(&cuLaunchKernel) launch_kernel = nullptr;
  decltype(&cuGetErrorName) get_error_name = nullptr;
};

template <typename Function>
void entry_point(const char* symbol, Function& function) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  check_cuda(cudaGetDriverEntryPointByVersion(symbol, &address, 12000, cudaEnableDefault, &found),
             fmt::format("cudaGetDriverEntryPointByVersion({})", symbol));
  if (found != cudaDriverEntryPointSuccess || address == nullptr)
    throw CudaFailure({CudaOutcome::failed, fmt::format("the CUDA driver has no entry point {}", symbol)});
  function = reinterpret_cast<Function>(address);
}

DriverApi look_up_driver_api() {
  DriverApi api;
  entry_point("cuModuleLoadData", api.module_load_data);
  entry_point("cuModuleGetFunction", api.module_get_function);
  entry_point("cuModuleUnload", api.module_unload);
  entry_point("cuLaunchKernel", api.launch_kernel);
  entry_point("cuGetErrorName", api.get_error_name);
  return api;
}

// Looked up on first use, after a device was found; a failed look-up is retried next time.
const DriverApi& driver_api() {
  static const DriverApi api = look_up_driver_api();
  return api;
}

void check_driver(CUresult result, const std::string& call) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  driver_api().get_error_name(result, &name);
  throw CudaFailure({CudaOutcome::failed,
                     fmt::format("{}: {}", call, name != nullptr ? name : std::to_string(static_cast<int>(result)))});
}

unsigned int launch_extent(int64_t value, const std::string& kernel) {
  PET_CHECK(value >= 1 && value <= std::numeric_limits<int32_t>::max(),
            fmt::format("kernel {} has a launch extent {} outside [1, 2^31)", kernel, value));
  return static_cast<unsigned int>(value);
}

}  // namespace

DriverModule::DriverModule(const std::string& cubin) {
  check_driver(driver_api().module_load_data(&module_, cubin.data()), "cuModuleLoadData");
}

DriverModule::~DriverModule() {
  if (module_ != nullptr) driver_api().module_unload(module_);
}

CUfunction DriverModule::function(const std::string& name) const {
  CUfunction function = nullptr;
  check_driver(driver_api().module_get_function(&function, module_, name.c_str()),
               fmt::format("cuModuleGetFunction({})", name));
  return function;
}

void launch_kernel(CUfunction function, const codegen::LaunchShape& launch, const std::vector<void*>& pointers,
                   cudaStream_t stream, const std::string& kernel) {
  std::vector<void*> pointer_copies = pointers;  // cuLaunchKernel reads each parameter through its address
  std::vector<void*> parameters;
  for (void*& pointer : pointer_copies) parameters.push_back(&pointer);
  check_driver(
      driver_api().launch_kernel(function, launch_extent(launch.grid, kernel), 1, 1,
                                 launch_extent(launch.block, kernel), 1, 1, 0, stream, parameters.data(), nullptr),
      fmt::format("cuLaunchKernel({})", kernel));
}

}  // namespace pet::gpu
