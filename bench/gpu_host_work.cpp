// The host work pet-gpu's runtime does for a live run's kernel-group timings before it loads
// anything on a device, which since session 51 runs outside the GPU lock: each group's model
// (weight-free, as pet-opt sends it) imported with its weights filled, its host program prepared,
// and its own kernels compiled by NVRTC (or read from the kernel store). On a machine without a
// GPU the runtime does exactly that and then refuses at the first load, so the time until that
// refusal is the host work.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/temporary_folder.h"
#include "kernels/gpu/executor/gpu_runtime.h"
#include "search/cost/kernel_groups.h"
#include "search/passes/cleanup.h"
#include "search/passes/finalize.h"

namespace {

constexpr const char* kUsage =
    "usage: pet_gpu_host_work MODEL [--per-request N]\n"
    "  MODEL: an ONNX model, cleaned and finalized as pet-opt prices it; each distinct pet-gpu kernel\n"
    "         group becomes a weight-free model, sent to pet-gpu's runtime N at a time (default 8)\n"
    "         with an empty kernel store (every kernel compiled), then again in a new runtime with\n"
    "         the store filled (every kernel read back); prints each pass's host seconds\n";

using Clock = std::chrono::steady_clock;

// The weight-free models of the graph's kernel groups that run a kernel, one per group key, as
// pet-opt's measured cost model asks for them (a repeated block's groups are timed once).
std::vector<std::string> group_models(const pet::Graph& graph, const pet::ExportOptions& options) {
  std::vector<std::string> models;
  std::set<std::string> keys;
  pet::cost::KernelGrouping grouping = pet::cost::kernel_groups(graph, pet::cost::GroupingRule::pet_gpu_steps);
  for (const pet::cost::KernelGroup& group : grouping.groups)
    if (!group.in_place && keys.insert(group.key).second)
      models.push_back(pet::serialize_onnx(pet::cost::kernel_group_model(graph, group), options));
  return models;
}

// Seconds of one runtime's host work over `models`, `per_request` at a time; each request ends at
// the runtime's first load, which has no device here.
double host_seconds(const std::vector<std::string>& models, size_t per_request) {
  pet::gpu::ExecutorOptions tf32;
  tf32.math = pet::gpu::MathMode::tf32;
  std::unique_ptr<pet::runtime::Runtime> runtime = pet::gpu::open_gpu_runtime(tf32);
  auto start = Clock::now();
  for (size_t first = 0; first < models.size(); first += per_request) {
    auto from = models.begin() + static_cast<std::ptrdiff_t>(first);
    std::vector<pet::runtime::ModelBytes> request(
        from, from + static_cast<std::ptrdiff_t>(std::min(per_request, models.size() - first)));
    try {
      runtime->time_models(request, {});
      throw pet::InternalError("a GPU timed the request: this bench measures the host work where there is none");
    } catch (const pet::runtime::ModelRejected& refused) {
      throw pet::InternalError(fmt::format("pet-gpu refused a kernel group: {}", refused.what()));
    } catch (const pet::UserError& error) {
      if (std::string(error.what()).rfind("no CUDA device: ", 0) != 0) throw;
    }
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t per_request = 8;
  if (args.size() == 3 && args[1] == "--per-request") per_request = static_cast<size_t>(std::stoul(args[2]));
  if (args.empty() || (args.size() != 1 && args.size() != 3) || per_request == 0) {
    std::cerr << kUsage;
    return 2;
  }
  try {
    pet::Graph graph = pet::import_onnx(args[0]);
    pet::cleanup(graph);
    pet::finalize(graph);
    std::vector<std::string> models = group_models(graph, {.extension_ops = false, .weight_free = true});
    pet::TemporaryFolder store("pet-gpu-host-work", "the bench's kernel store");
    setenv("PET_GPU_KERNEL_CACHE", store.path().c_str(), 1);
    double compiled = host_seconds(models, per_request);
    double recalled = host_seconds(models, per_request);
    std::cout << fmt::format("{}: {} kernel groups, {} per request; host work before the loads: {:.2f} s with every "
                             "kernel compiled ({:.1f} ms a group), {:.2f} s with every kernel read from the kernel "
                             "store ({:.1f} ms a group)\n",
                             args[0], models.size(), per_request, compiled, 1000 * compiled / models.size(), recalled,
                             1000 * recalled / models.size());
  } catch (const pet::UserError& error) {
    std::cerr << "pet_gpu_host_work: error: " << error.what() << "\n";
    return 2;
  }
  return 0;
}
