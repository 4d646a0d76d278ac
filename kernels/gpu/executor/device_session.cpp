// DeviceSession: the context made on first use, modules kept by kernel name, the search buffer
// grown on demand; what the loads did is counted for the log.
#include "kernels/gpu/executor/device_session.h"

#include <fmt/format.h>

namespace pet::gpu {

std::string SessionActivity::describe() const {
  double mean = loads == 0 ? 0.0 : load_ms / static_cast<double>(loads);
  return fmt::format("{} loads, mean {:.1f} ms; own kernels: {} compiled, {} reused; algorithm searches: {} run, {} "
                     "reused",
                     loads, mean, kernels_compiled, kernels_reused, searches, searches_reused);
}

DeviceSession::~DeviceSession() {
  if (context_) cudaStreamSynchronize(context_->stream());
}

std::shared_ptr<DeviceContext> DeviceSession::context() {
  if (!context_) context_ = std::make_shared<DeviceContext>(device_);
  return context_;
}

std::shared_ptr<LoadedKernels> DeviceSession::kernels(const std::vector<codegen::GeneratedKernel>& kernels,
                                                      unsigned threads, double& wall_ms) {
  auto loaded = std::make_shared<LoadedKernels>();
  std::vector<codegen::GeneratedKernel> missing;
  for (const codegen::GeneratedKernel& kernel : kernels) {
    auto found = modules_.find(kernel.name);
    if (found == modules_.end()) {
      missing.push_back(kernel);
      continue;
    }
    loaded->add(kernel.name, found->second);
    ++activity_.kernels_reused;
  }
  CompiledKernels compiled = compile_kernels(missing, threads);
  wall_ms = compiled.wall_ms;
  for (const auto& [name, cubin] : compiled.cubins) {
    auto module = std::make_shared<DriverModule>(cubin);
    modules_.emplace(name, module);
    loaded->add(name, std::move(module));
    ++activity_.kernels_compiled;
  }
  return loaded;
}

DeviceBuffer& DeviceSession::search_buffer(int64_t bytes) {
  if (search_.bytes() < bytes) {
    search_ = DeviceBuffer();  // the old one freed before the larger is allocated
    search_ = DeviceBuffer(bytes);
  }
  return search_;
}

}  // namespace pet::gpu
