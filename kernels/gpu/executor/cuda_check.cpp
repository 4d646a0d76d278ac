// The status texts of the CUDA libraries the executor calls, each behind one check function.
#include "kernels/gpu/executor/cuda_check.h"

#include <fmt/format.h>

namespace pet::gpu {

void check_cuda(cudaError_t error, std::string_view call) { check_status(cuda_status(error, call)); }

void check_cudnn(cudnnStatus_t status, std::string_view call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw CudaFailure({CudaOutcome::failed, fmt::format("{}: {}", call, cudnnGetErrorString(status))});
}

void check_cublas(cublasStatus_t status, std::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CudaFailure({CudaOutcome::failed,
                     fmt::format("{}: {} ({})", call, cublasLtGetStatusName(status), cublasLtGetStatusString(status))});
}

void check_status(const CudaStatus& status) {
  if (!status.ok()) throw CudaFailure(status);
}

}  // namespace pet::gpu
