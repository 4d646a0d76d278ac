// pet's own kernels on the device: every distinct kernel compiled to sm_90 CUBIN by NVRTC on
// several threads (no device needed), each CUBIN loaded once, and the step that launches one.
#pragma once

#include <cuda.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/content_store.h"
#include "kernels/gpu/codegen/kernel_text.h"
#include "kernels/gpu/executor/driver_module.h"
#include "kernels/gpu/executor/step_runner.h"

namespace pet::gpu {

struct CompiledKernels {
  std::map<std::string, std::string> cubins;  // by kernel name
  std::set<std::string> recalled_names;       // of them, those read from the kernel store
  double wall_ms = 0;                         // the whole compilation
  double compile_ms = 0;                      // NVRTC's time, all kernels added up
  size_t recalled() const { return recalled_names.size(); }
};

// The store of compiled kernels shared by pet-gpu processes (core/content_store.h), under the
// compiler's identity (cubin_compiler()): $PET_GPU_KERNEL_CACHE (a folder, or "off" for none), else
// gpu-kernels/ in pet's user cache folder. A kernel's key is its name and full source.
std::optional<ContentStore> kernel_store();

// Each kernel's CUBIN from the kernel store where it holds it, else compiled by NVRTC (the rest on
// `threads` threads, 0: every core) and added to the store. Internal check with NVRTC's log for a
// kernel that does not compile (a generator's bug).
CompiledKernels compile_kernels(const std::vector<codegen::GeneratedKernel>& kernels, unsigned threads);

// Compiled kernels loaded into the current context, each module shared with whoever else loaded it
// (a DeviceSession's later loads).
class LoadedKernels {
 public:
  void add(const std::string& name, std::shared_ptr<DriverModule> module);
  CUfunction function(const std::string& name) const;  // internal check for a kernel not loaded
  size_t size() const { return functions_.size(); }

 private:
  std::vector<std::shared_ptr<DriverModule>> modules_;
  std::map<std::string, CUfunction> functions_;
};

// One launch of a loaded kernel with fixed device pointers, one per parameter.
class KernelStep : public StepRunner {
 public:
  KernelStep(CUfunction function, std::string name, codegen::LaunchShape launch, std::vector<void*> pointers)
      : function_(function), name_(std::move(name)), launch_(launch), pointers_(std::move(pointers)) {}
  void enqueue(cudaStream_t stream) override { launch_kernel(function_, launch_, pointers_, stream, name_); }
  std::string describe() const override { return name_ + ", " + launch_.to_string(); }

 private:
  CUfunction function_;
  std::string name_;
  codegen::LaunchShape launch_;
  std::vector<void*> pointers_;
};

}  // namespace pet::gpu
