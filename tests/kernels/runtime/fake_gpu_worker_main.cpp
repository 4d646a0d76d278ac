// `pet-gpu worker`'s test double: the worker loop of kernels/runtime/worker_server.h over
// FakeGpuRuntime, so pet-opt --live runs end to end where there is no GPU (PET_GPU names it).
// $PET_FAKE_GPU_CARD names its card (default "NVIDIA H200 (test double)"); $PET_FAKE_GPU_REFUSE
// makes it a worker without a device, answering every request with that text. As pet-gpu worker,
// it appends its activity line to $PET_GPU_ACTIVITY_LOG as it ends (here: the largest models sent)
// and holds $PET_GPU_LOCK around its "device" work.
#include <cstdlib>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/runtime/worker_server.h"
#include "tests/kernels/runtime/fake_gpu_runtime.h"

int main(int argc, char** argv) {
  using namespace pet;
  if (const char* refuse = std::getenv("PET_FAKE_GPU_REFUSE")) {
    runtime::refuse_worker(refuse, std::cin, std::cout);
    return 0;
  }
  const char* card = std::getenv("PET_FAKE_GPU_CARD");
  bool strict = argc > 2 && std::string(argv[2]) == "--strict";
  testing::FakeGpuRuntime fake;
  nlohmann::json version = {{"ok", true},
                            {"version", fake.version()},
                            {"card", card != nullptr ? card : "NVIDIA H200 (test double)"},
                            {"precision", strict ? "f32" : "tf32"}};
  const char* gpu_lock = std::getenv("PET_GPU_LOCK");
  runtime::serve_worker(fake, version, std::cin, std::cout, gpu_lock != nullptr ? gpu_lock : "");
  runtime::log_worker_activity(fake, "fake pet-gpu worker");
  return 0;
}
