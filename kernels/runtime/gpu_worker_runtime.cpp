// The GPU worker client: which pet-gpu to start, the card its version reply names, and the one
// message for a machine where it cannot run.
#include "kernels/runtime/gpu_worker_runtime.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

namespace pet::runtime {
namespace {

namespace fs = std::filesystem;

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

WorkerSpec gpu_worker(bool strict) {
  std::string program = pet_gpu_program();
  WorkerSpec spec;
  spec.target = "pet-gpu";
  spec.command = {program, "worker", strict ? "--strict" : "--tf32"};
  spec.name = "pet-gpu";
  spec.folder_prefix = "pet-gpu-worker";
  spec.unavailable = [program](const std::string& reason) {
    return UserError(fmt::format("pet-gpu's worker ('{} worker') is not available: {}. --live times on this "
                                 "machine's GPU through pet-gpu, which a build with -DPET_BUILD_CUDA=ON makes beside "
                                 "pet-opt (set PET_GPU to its path); without --live a GPU target replays its profile DB",
                                 program, reason));
  };
  return spec;
}

}  // namespace

std::string GpuWorkerRuntime::card() const { return version_reply().value("card", std::string()); }

std::string GpuWorkerRuntime::compute_precision() const { return version_reply().value("precision", std::string()); }

std::unique_ptr<GpuWorkerRuntime> open_gpu_worker_runtime(bool strict) {
  auto worker = std::make_unique<GpuWorkerRuntime>(gpu_worker(strict));
  if (worker->card().empty() || worker->compute_precision().empty())
    throw UserError(fmt::format("pet-gpu's worker ('{}') answered without naming its card and math; it is older "
                                "than this pet-opt: build both from one checkout",
                                pet_gpu_program()));
  return worker;
}

std::string pet_gpu_program() {
  if (const char* given = std::getenv("PET_GPU"); given != nullptr && *given != '\0') return given;
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    fs::path beside = self.parent_path() / "pet-gpu";
    if (fs::exists(beside, error)) return beside.string();
  }
  return "pet-gpu";
}

bool card_is_target(const std::string& card, const std::string& target) {
  std::istringstream words(card);
  std::string word;
  while (words >> word)
    if (upper(word) == upper(target)) return true;
  return false;
}

}  // namespace pet::runtime
