// Compiling and loading pet's own kernels: NVRTC programs on a thread pool (one per kernel, as a
// kernel's helpers may share names with another's), then one module per CUBIN.
#include "kernels/gpu/executor/own_kernels.h"

#include <fmt/format.h>

#include <chrono>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/nvrtc_compile.h"

namespace pet::gpu {

CompiledKernels compile_kernels(const std::vector<codegen::GeneratedKernel>& kernels, unsigned threads) {
  auto start = std::chrono::steady_clock::now();
  std::vector<CubinCompilation> results(kernels.size());
  for_each_in_parallel(kernels.size(), threads == 0 ? thread_count_for(0) : threads,
                       [&](size_t i) { results[i] = compile_to_cubin(kernels[i].source, kernels[i].name + ".cu"); });
  CompiledKernels compiled;
  for (size_t i = 0; i < kernels.size(); ++i) {
    PET_CHECK(results[i].ok(), fmt::format("pet-gpu's kernel {} does not compile: {}\n{}", kernels[i].name,
                                           results[i].error, kernels[i].source));
    compiled.compile_ms += results[i].compile_ms;
    compiled.cubins.emplace(kernels[i].name, std::move(results[i].cubin));
  }
  compiled.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return compiled;
}

void LoadedKernels::add(const std::string& name, std::shared_ptr<DriverModule> module) {
  functions_.emplace(name, module->function(name));
  modules_.push_back(std::move(module));
}

CUfunction LoadedKernels::function(const std::string& name) const {
  auto found = functions_.find(name);
  PET_CHECK(found != functions_.end(), fmt::format("kernel {} was not loaded", name));
  return found->second;
}

}  // namespace pet::gpu
