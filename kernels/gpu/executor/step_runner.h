// The one thing every step does once loaded: put its work on a stream (eagerly, or while a CUDA
// graph captures it), and say what runs.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace pet::gpu {

class StepRunner {
 public:
  virtual ~StepRunner() = default;
  // Enqueues the step's library calls or kernel launches on `stream`. CudaFailure naming the call
  // when one is refused (a failure inside a kernel shows at the next synchronization).
  virtual void enqueue(cudaStream_t stream) = 0;
  // What runs: the algorithm and its workspace, or the kernel and its launch shape.
  virtual std::string describe() const = 0;
  // Workspace bytes the step uses (its algorithm's), 0 for none.
  virtual int64_t workspace_bytes() const { return 0; }
};

}  // namespace pet::gpu
