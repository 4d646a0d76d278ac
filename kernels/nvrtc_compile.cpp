// NVRTC compilation to PTX or CUBIN, and a driver-API launcher whose entry points come from the CUDA
// runtime, so binaries start (and report no device) on machines without libcuda.
#include "kernels/nvrtc_compile.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/driver_api.h"

namespace pet {
namespace {

// Owns one NVRTC program so every early return destroys it.
struct NvrtcProgram {
  nvrtcProgram handle = nullptr;
  ~NvrtcProgram() {
    if (handle != nullptr) nvrtcDestroyProgram(&handle);
  }
};

std::string program_log(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return "";
  log.resize(size - 1);  // drop the terminating NUL
  return log;
}

std::string nvrtc_failure(const char* call, nvrtcResult result, const std::string& log) {
  return fmt::format("{}: {}{}", call, nvrtcGetErrorString(result), log.empty() ? "" : "\n" + log);
}

// Owns the device copies of the kernel's arguments.
class DeviceBuffers {
 public:
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (void* pointer : pointers_) cudaFree(pointer);
  }

  CudaStatus upload(std::span<const float> host) {
    void* pointer = nullptr;
    size_t bytes = std::max<size_t>(1, host.size()) * sizeof(float);  // a valid pointer even when empty
    if (CudaStatus s = cuda_status(cudaMalloc(&pointer, bytes), "cudaMalloc"); !s.ok()) return s;
    pointers_.push_back(pointer);
    return cuda_status(cudaMemcpy(pointer, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
                       "cudaMemcpy to device");
  }
  std::vector<void*>& pointers() { return pointers_; }

 private:
  std::vector<void*> pointers_;
};

struct ModuleGuard {
  const DriverApi& api;
  CUmodule module = nullptr;
  ~ModuleGuard() {
    if (module != nullptr) api.module_unload(module);
  }
};

std::vector<std::string> nvrtc_options(const std::string& arch) { return {"--gpu-architecture=" + arch, "--std=c++17"}; }

// Compiles `source` for `arch` and hands the program to `take_output` (which fills the result's
// PTX or CUBIN); every failure is reported in the result's error with NVRTC's log.
template <typename Compilation, typename TakeOutput>
Compilation compile_with_nvrtc(const std::string& source, const std::string& program_name, const std::string& arch,
                               TakeOutput take_output) {
  Compilation result;
  NvrtcProgram program;
  nvrtcResult status = nvrtcCreateProgram(&program.handle, source.c_str(), program_name.c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) {
    result.error = nvrtc_failure("nvrtcCreateProgram", status, "");
    return result;
  }
  std::vector<std::string> option_texts = nvrtc_options(arch);
  std::vector<const char*> options;
  for (const std::string& option : option_texts) options.push_back(option.c_str());
  auto start = std::chrono::steady_clock::now();
  status = nvrtcCompileProgram(program.handle, static_cast<int>(options.size()), options.data());
  result.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  result.log = program_log(program.handle);
  if (status != NVRTC_SUCCESS) {
    result.error = nvrtc_failure("nvrtcCompileProgram", status, result.log);
    return result;
  }
  take_output(program.handle, result);
  return result;
}

}  // namespace

PtxCompilation compile_to_ptx(const std::string& source, const std::string& program_name, const std::string& arch) {
  return compile_with_nvrtc<PtxCompilation>(source, program_name, arch, [](nvrtcProgram program, PtxCompilation& result) {
    size_t size = 0;
    nvrtcResult status = nvrtcGetPTXSize(program, &size);
    if (status == NVRTC_SUCCESS) {
      result.ptx.assign(size, '\0');
      status = nvrtcGetPTX(program, result.ptx.data());
      result.ptx.resize(size > 0 ? size - 1 : 0);
    }
    if (status != NVRTC_SUCCESS) {
      result.ptx.clear();
      result.error = nvrtc_failure("nvrtcGetPTX", status, result.log);
    }
  });
}

// A real architecture (sm_NN) makes NVRTC emit SASS; a virtual one (compute_NN) gives PTX only.
CubinCompilation compile_to_cubin(const std::string& source, const std::string& program_name,
                                  const std::string& arch) {
  return compile_with_nvrtc<CubinCompilation>(
      source, program_name, arch, [&arch](nvrtcProgram program, CubinCompilation& result) {
        size_t size = 0;
        nvrtcResult status = nvrtcGetCUBINSize(program, &size);
        if (status == NVRTC_SUCCESS && size == 0) {
          result.error =
              fmt::format("nvrtcGetCUBINSize: no CUBIN for '{}' (a virtual architecture gives PTX only)", arch);
          return;
        }
        if (status == NVRTC_SUCCESS) {
          result.cubin.assign(size, '\0');
          status = nvrtcGetCUBIN(program, result.cubin.data());
        }
        if (status != NVRTC_SUCCESS) {
          result.cubin.clear();
          result.error = nvrtc_failure("nvrtcGetCUBIN", status, result.log);
        }
      });
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::string cubin_compiler(const std::string& arch) {
  return fmt::format("NVRTC {} {}", nvrtc_version(), fmt::join(nvrtc_options(arch), " "));
}

CudaStatus launch_ptx(int device, const PtxLaunch& launch, const std::vector<std::span<const float>>& inputs,
                      std::vector<float>& in_out) {
  int count = 0;
  if (CudaStatus s = cuda_status(cudaGetDeviceCount(&count), "cudaGetDeviceCount"); !s.ok()) return s;
  if (count == 0) return {CudaOutcome::no_device, "cudaGetDeviceCount: reported 0 devices"};
  if (CudaStatus s = cuda_status(cudaSetDevice(device), "cudaSetDevice"); !s.ok()) return s;
  if (CudaStatus s = cuda_status(cudaFree(nullptr), "cudaFree(nullptr) (context creation)"); !s.ok()) return s;
  DriverApi api;
  if (CudaStatus s = load_driver_api(api); !s.ok()) return s;
  ModuleGuard module{api};
  if (CudaStatus s = driver_status(api, api.module_load_data(&module.module, launch.ptx.c_str()), "cuModuleLoadData");
      !s.ok())
    return s;
  CUfunction function = nullptr;
  if (CudaStatus s = driver_status(api, api.module_get_function(&function, module.module, launch.kernel.c_str()),
                                   "cuModuleGetFunction(" + launch.kernel + ")");
      !s.ok())
    return s;
  DeviceBuffers buffers;
  for (std::span<const float> input : inputs)
    if (CudaStatus s = buffers.upload(input); !s.ok()) return s;
  if (CudaStatus s = buffers.upload(in_out); !s.ok()) return s;
  std::vector<void*> arguments;
  for (void*& pointer : buffers.pointers()) arguments.push_back(&pointer);
  if (CudaStatus s = driver_status(api, api.launch_kernel(function, launch.grid, 1, 1, launch.block, 1, 1, 0, nullptr,
                                                          arguments.data(), nullptr),
                                   "cuLaunchKernel(" + launch.kernel + ")");
      !s.ok())
    return s;
  if (CudaStatus s = cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); !s.ok()) return s;
  return cuda_status(cudaMemcpy(in_out.data(), buffers.pointers().back(), in_out.size() * sizeof(float),
                                cudaMemcpyDeviceToHost),
                     "cudaMemcpy to host");
}

}  // namespace pet
