// The driver entry points, looked up once per process through the runtime, and the module and
// launch calls made through them.
#include "kernels/gpu/executor/driver_module.h"

#include <fmt/format.h>

#include <limits>

#include "core/error.h"
#include "kernels/driver_api.h"
#include "kernels/gpu/executor/cuda_check.h"

namespace pet::gpu {
namespace {

DriverApi look_up_driver_api() {
  DriverApi api;
  if (CudaStatus status = load_driver_api(api); !status.ok()) throw CudaFailure(status);
  return api;
}

// Looked up on first use, after a device was found; a failed look-up is retried next time.
const DriverApi& driver_api() {
  static const DriverApi api = look_up_driver_api();
  return api;
}

void check_driver(CUresult result, const std::string& call) {
  if (CudaStatus status = driver_status(driver_api(), result, call); !status.ok()) throw CudaFailure(status);
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
