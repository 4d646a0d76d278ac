// The forward pass as one CUDA graph: captured once from what the steps enqueue on the model's
// stream, instantiated, and replayed with one launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

namespace pet::gpu {

class CudaGraph {
 public:
  // Captures what `enqueue` puts on `stream` (thread-local capture mode) and instantiates it.
  // CudaFailure naming the call when capture or instantiation fails; the stream is out of capture
  // mode again whatever happens, and an exception from `enqueue` passes through.
  CudaGraph(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue);
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  ~CudaGraph();

  void launch(cudaStream_t stream);
  size_t nodes() const { return nodes_; }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  size_t nodes_ = 0;
};

}  // namespace pet::gpu
