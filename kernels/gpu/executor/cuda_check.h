// Failed CUDA runtime, driver, cuDNN and cuBLAS calls as one exception carrying a CudaStatus (the
// call's name and the library's status text), so the executor's code reads as the calls it makes
// and its public entry points turn the exception back into a status.
#pragma once

#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "kernels/cuda_status.h"

namespace pet::gpu {

// A CUDA call that failed (outcome failed) or found no device (outcome no_device).
class CudaFailure : public std::runtime_error {
 public:
  explicit CudaFailure(CudaStatus status) : std::runtime_error(status.message), status_(std::move(status)) {}
  const CudaStatus& status() const { return status_; }

 private:
  CudaStatus status_;
};

// Each throws CudaFailure naming `call` unless the status is success.
void check_cuda(cudaError_t error, std::string_view call);
void check_cudnn(cudnnStatus_t status, std::string_view call);
void check_cublas(cublasStatus_t status, std::string_view call);

// Throws CudaFailure(status) unless it is ok.
void check_status(const CudaStatus& status);

}  // namespace pet::gpu
