// DeviceSession: the context made on first use, modules kept by kernel name (compiled or read from
// the kernel store, at their load or ahead of it), the search buffer grown on demand; each finished
// load counted for the log.
#include "kernels/gpu/executor/device_session.h"

#include <set>

#include <fmt/format.h>

#include "core/error.h"

namespace pet::gpu {

std::string SessionActivity::describe() const {
  double mean = loads == 0 ? 0.0 : load_ms / static_cast<double>(loads);
  return fmt::format("{} loads, mean {:.1f} ms; own kernels: {} compiled, {} reused, {} from the kernel store ({} "
                     "of these before their loads); algorithm searches: {} run, {} reused",
                     loads, mean, kernels_compiled, kernels_reused, kernels_recalled, kernels_ahead, searches,
                     searches_reused);
}

DeviceSession::~DeviceSession() {
  if (context_) cudaStreamSynchronize(context_->stream());
}

std::shared_ptr<DeviceContext> DeviceSession::context() {
  if (!context_) context_ = std::make_shared<DeviceContext>(device_);
  return context_;
}

SessionKernels DeviceSession::kernels(const std::vector<codegen::GeneratedKernel>& kernels, unsigned threads) {
  NewlyCompiled now = compile_missing(kernels, threads);
  SessionKernels given{std::make_shared<LoadedKernels>(), 0, 0, now.wall_ms};
  for (const codegen::GeneratedKernel& kernel : kernels) {
    if (auto found = modules_.find(kernel.name); found != modules_.end()) {
      given.loaded->add(kernel.name, found->second);
      ++given.reused;
      continue;
    }
    auto compiled = ahead_.find(kernel.name);
    PET_CHECK(compiled != ahead_.end(), fmt::format("kernel {} was neither loaded nor compiled", kernel.name));
    given.recalled += compiled->second.recalled ? 1 : 0;
    if (!now.names.count(kernel.name)) ++activity_.kernels_ahead;
    auto module = std::make_shared<DriverModule>(compiled->second.cubin);
    modules_.emplace(kernel.name, module);
    given.loaded->add(kernel.name, std::move(module));
    ahead_.erase(compiled);
  }
  return given;
}

void DeviceSession::compile_ahead(const std::vector<codegen::GeneratedKernel>& kernels, unsigned threads) {
  compile_missing(kernels, threads);
}

DeviceSession::NewlyCompiled DeviceSession::compile_missing(const std::vector<codegen::GeneratedKernel>& kernels,
                                                            unsigned threads) {
  std::vector<codegen::GeneratedKernel> missing;
  std::set<std::string> named;
  for (const codegen::GeneratedKernel& kernel : kernels)
    if (!modules_.count(kernel.name) && !ahead_.count(kernel.name) && named.insert(kernel.name).second)
      missing.push_back(kernel);
  CompiledKernels compiled = compile_kernels(missing, threads);
  for (auto& [name, cubin] : compiled.cubins)
    ahead_.emplace(name, AheadKernel{std::move(cubin), compiled.recalled_names.count(name) > 0});
  return {std::move(named), compiled.wall_ms};
}

void DeviceSession::record(const LoadSummary& load) {
  activity_.loads += 1;
  activity_.load_ms += load.load_ms;
  activity_.kernels_reused += static_cast<int64_t>(load.kernels_reused);
  activity_.kernels_recalled += static_cast<int64_t>(load.kernels_recalled);
  activity_.kernels_compiled += static_cast<int64_t>(load.kernels - load.kernels_reused - load.kernels_recalled);
  activity_.searches += load.searches;
  activity_.searches_reused += load.searches_reused;
}

DeviceBuffer& DeviceSession::search_buffer(int64_t bytes) {
  if (search_.bytes() < bytes) {
    search_ = DeviceBuffer();  // the old one freed before the larger is allocated
    search_ = DeviceBuffer(bytes);
  }
  return search_;
}

}  // namespace pet::gpu
