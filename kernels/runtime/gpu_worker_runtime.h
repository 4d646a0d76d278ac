// pet-gpu's runtime as pet-opt times in it on a machine with a GPU: `pet-gpu worker` in a process of
// its own (the JSON-line protocol of kernels/runtime/json_worker.h), so pet-opt links no CUDA
// library and a CUDA failure ends the worker, not the search.
#pragma once

#include <memory>
#include <string>

#include "kernels/runtime/json_worker.h"

namespace pet::runtime {

class GpuWorkerRuntime : public JsonWorkerRuntime {
 public:
  using JsonWorkerRuntime::JsonWorkerRuntime;
  // The card the worker times on, as the CUDA driver names it ("NVIDIA H200"): what a GPU target's
  // profile DB entries are keyed by, as `pet-gpu measure` keys its results.
  std::string card() const;
  std::string compute_precision() const override;  // "tf32", or "f32" for a strict worker
  // Models to time go weight-free (ExportOptions::weight_free; the worker fills their weights with
  // noise): kilobytes to write, read and parse where the weights are megabytes, and the same times.
  // Models to run (run_model) are the caller's bytes, weights and all.
  ExportOptions export_options() const override { return {.weight_free = true}; }
};

// Starts `pet-gpu worker` on device 0, in TF32 as the GPU targets are timed, or in strict FP32
// (`strict`, for checking outputs). UserError naming the program and the reason when it cannot start
// or has no CUDA device.
std::unique_ptr<GpuWorkerRuntime> open_gpu_worker_runtime(bool strict = false);

// The pet-gpu to start: $PET_GPU when set, else pet-gpu beside this executable, else pet-gpu on PATH.
std::string pet_gpu_program();

// Whether `card` is the card GPU target `target` names: a word of the card's name ("NVIDIA H100 80GB
// HBM3": NVIDIA, H100, 80GB, HBM3) is the target's name in capitals ("h100").
bool card_is_target(const std::string& card, const std::string& target);

}  // namespace pet::runtime
