// CUDA-event timing shared by the ceilings, the op profiler and (later) the GPU runtime.
#include "kernels/event_timing.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>

namespace pet {
namespace {

// Linear interpolation between the closest ranks of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  double position = q * static_cast<double>(sorted.size() - 1);
  auto below = static_cast<std::size_t>(std::floor(position));
  std::size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

// Owns the two events of one timing, so every early return destroys them.
struct EventPair {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  EventPair() = default;
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
  }
};

}  // namespace

RunSummary summarize_runs(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  return {quantile(values, 0.5), quantile(values, 0.25), quantile(values, 0.75), static_cast<int>(values.size())};
}

CudaStatus time_with_events(const std::function<void()>& work, int warmup, int runs, std::vector<double>& ms) {
  for (int i = 0; i < warmup; ++i) work();
  if (CudaStatus s = cuda_status(cudaDeviceSynchronize(), "warm-up (cudaDeviceSynchronize)"); !s.ok()) return s;
  EventPair events;
  if (CudaStatus s = cuda_status(cudaEventCreate(&events.start), "cudaEventCreate"); !s.ok()) return s;
  if (CudaStatus s = cuda_status(cudaEventCreate(&events.stop), "cudaEventCreate"); !s.ok()) return s;
  for (int i = 0; i < runs; ++i) {
    cudaEventRecord(events.start);
    work();
    cudaEventRecord(events.stop);
    if (CudaStatus s = cuda_status(cudaEventSynchronize(events.stop), "timed run (cudaEventSynchronize)"); !s.ok())
      return s;
    float elapsed = 0;
    if (CudaStatus s = cuda_status(cudaEventElapsedTime(&elapsed, events.start, events.stop), "cudaEventElapsedTime");
        !s.ok())
      return s;
    ms.push_back(static_cast<double>(elapsed));
  }
  return {};
}

}  // namespace pet
