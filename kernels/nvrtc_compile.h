// Runtime compilation of generated CUDA C: NVRTC turns source into PTX or CUBIN on any machine (no
// device needed), and launch_ptx() loads and runs that PTX through the driver API where a device exists.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/cuda_status.h"

namespace pet {

struct PtxCompilation {
  std::string ptx;         // empty unless ok()
  std::string log;         // NVRTC's program log: the diagnostics, also warnings on success
  std::string error;       // empty on success; else the failing NVRTC call, its result and the log
  double compile_ms = 0;   // wall time of nvrtcCompileProgram alone
  bool ok() const { return error.empty(); }
};

// Compiles `source` (one translation unit, named `program_name` in diagnostics) for `arch`, e.g.
// "sm_90". Never throws for bad source: a compile error is reported in `error` with the log.
PtxCompilation compile_to_ptx(const std::string& source, const std::string& program_name,
                              const std::string& arch = "sm_90");

struct CubinCompilation {
  std::string cubin;       // the ELF image (binary); empty unless ok()
  std::string log;         // NVRTC's program log: the diagnostics, also warnings on success
  std::string error;       // empty on success; else the failing NVRTC call, its result and the log
  double compile_ms = 0;   // wall time of nvrtcCompileProgram alone
  bool ok() const { return error.empty(); }
};

// Compiles `source` like compile_to_ptx, but to a CUBIN for the real architecture `arch` (an
// "sm_NN", never a virtual "compute_NN"), so a device loads it without a JIT step. Never throws
// for bad source: a compile error is reported in `error` with the log.
CubinCompilation compile_to_cubin(const std::string& source, const std::string& program_name,
                                  const std::string& arch = "sm_90");

// The NVRTC version this binary runs with, as "major.minor".
std::string nvrtc_version();
// What decides compile_to_cubin's output besides the source: "NVRTC 13.0 --gpu-architecture=sm_90
// --std=c++17" (a store of compiled kernels keeps them under it).
std::string cubin_compiler(const std::string& arch = "sm_90");

struct PtxLaunch {
  std::string ptx;
  std::string kernel;   // extern "C" name of a __global__ function in `ptx`
  uint32_t grid = 1;
  uint32_t block = 256;
};

// Runs a kernel of signature (const float* in0, ..., float* out) once on `device`: each input is
// copied to the device, `in_out` is copied there, updated in place by the kernel and copied back.
// With no device or driver the status is no_device and `in_out` is untouched.
CudaStatus launch_ptx(int device, const PtxLaunch& launch, const std::vector<std::span<const float>>& inputs,
                      std::vector<float>& in_out);

}  // namespace pet
