// What the load's searches share when they time candidates on the device: the alignment an operand's
// address allows, and the mean time of a few enqueued runs between two CUDA events.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>

namespace pet::gpu {

// The largest power of two, up to 256, that divides the address.
uint32_t alignment_of(const void* pointer);

// Owns the two events of one timing.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair();
};

// The mean milliseconds of `runs` calls of `enqueue` on `stream`, timed between two events after
// `warmup` untimed calls. CudaFailure when an event call fails; `enqueue` throws what it throws.
float mean_enqueued_ms(cudaStream_t stream, int warmup, int runs, const std::function<void()>& enqueue);

}  // namespace pet::gpu
