// Compiling and loading pet's own kernels: each CUBIN from the kernel store or an NVRTC program on a
// thread pool (one per kernel, as a kernel's helpers may share names with another's), then one
// module per CUBIN.
#include "kernels/gpu/executor/own_kernels.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/nvrtc_compile.h"

namespace pet::gpu {

std::optional<ContentStore> kernel_store() {
  std::optional<std::filesystem::path> folder = store_folder_from_environment("PET_GPU_KERNEL_CACHE", "gpu-kernels");
  if (!folder) return std::nullopt;
  return ContentStore(*folder, cubin_compiler());
}

namespace {

std::string store_key(const codegen::GeneratedKernel& kernel) { return kernel.name + "\n" + kernel.source; }

}  // namespace

CompiledKernels compile_kernels(const std::vector<codegen::GeneratedKernel>& kernels, unsigned threads) {
  auto start = std::chrono::steady_clock::now();
  std::optional<ContentStore> store = kernel_store();
  std::vector<std::optional<std::string>> stored(kernels.size());
  std::vector<size_t> to_compile;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (store) stored[i] = store->find(store_key(kernels[i]));
    if (!stored[i] || stored[i]->empty()) to_compile.push_back(i);
  }
  CompiledKernels compiled;
  for (size_t i = 0; i < kernels.size(); ++i)
    if (stored[i] && !stored[i]->empty()) compiled.recalled_names.insert(kernels[i].name);
  std::vector<CubinCompilation> results(to_compile.size());
  for_each_in_parallel(to_compile.size(), threads == 0 ? thread_count_for(0) : threads, [&](size_t k) {
    const codegen::GeneratedKernel& kernel = kernels[to_compile[k]];
    results[k] = compile_to_cubin(kernel.source, kernel.name + ".cu");
    if (store && results[k].ok()) store->remember(store_key(kernel), results[k].cubin);
  });
  for (size_t k = 0; k < to_compile.size(); ++k) {
    const codegen::GeneratedKernel& kernel = kernels[to_compile[k]];
    PET_CHECK(results[k].ok(), fmt::format("pet-gpu's kernel {} does not compile: {}\n{}", kernel.name,
                                           results[k].error, kernel.source));
    compiled.compile_ms += results[k].compile_ms;
    stored[to_compile[k]] = std::move(results[k].cubin);
  }
  for (size_t i = 0; i < kernels.size(); ++i) compiled.cubins.emplace(kernels[i].name, std::move(*stored[i]));
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
