// Alignment of a device address and the event-timed mean of a few enqueued runs.
#include "kernels/gpu/executor/device_timing.h"

#include "kernels/gpu/executor/cuda_check.h"

namespace pet::gpu {

uint32_t alignment_of(const void* pointer) {
  auto address = reinterpret_cast<uintptr_t>(pointer);
  uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0) alignment /= 2;
  return alignment;
}

EventPair::EventPair() {
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
}

EventPair::~EventPair() {
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

float mean_enqueued_ms(cudaStream_t stream, int warmup, int runs, const std::function<void()>& enqueue) {
  for (int run = 0; run < warmup; ++run) enqueue();
  EventPair events;
  check_cuda(cudaEventRecord(events.start, stream), "cudaEventRecord");
  for (int run = 0; run < runs; ++run) enqueue();
  check_cuda(cudaEventRecord(events.stop, stream), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(events.stop), "cudaEventSynchronize (timing a candidate)");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, events.start, events.stop), "cudaEventElapsedTime");
  return ms / static_cast<float>(runs);
}

}  // namespace pet::gpu
