// CudaGraph: capture ends even when a step's enqueue throws, so a failed capture never leaves the
// stream capturing.
#include "kernels/gpu/executor/cuda_graph.h"

#include "kernels/gpu/executor/cuda_check.h"

namespace pet::gpu {

CudaGraph::CudaGraph(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue) {
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  try {
    enqueue(stream);
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);
    if (partial != nullptr) cudaGraphDestroy(partial);
    throw;
  }
  check_cuda(cudaStreamEndCapture(stream, &graph_), "cudaStreamEndCapture");
  try {
    check_cuda(cudaGraphGetNodes(graph_, nullptr, &nodes_), "cudaGraphGetNodes");
    check_cuda(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
  } catch (...) {
    cudaGraphDestroy(graph_);
    throw;
  }
}

CudaGraph::~CudaGraph() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
}

void CudaGraph::launch(cudaStream_t stream) { check_cuda(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }

}  // namespace pet::gpu
