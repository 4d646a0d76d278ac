// One device as the executor uses it: the device made current, one stream every step runs on,
// and the cuDNN and cuBLASLt handles bound to it; "no device" is a CudaFailure of outcome
// no_device, raised before anything is created.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

namespace pet::gpu {

class DeviceContext {
 public:
  // CudaFailure: no_device where the runtime finds no device or driver, failed for a device index
  // beyond the count or a failed call.
  explicit DeviceContext(int device);
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;
  ~DeviceContext();

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  cublasLtHandle_t cublaslt() const { return cublaslt_; }
  void synchronize() const;
  // Free device memory now, in bytes.
  int64_t free_memory() const;

 private:
  void release();
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cublasLtHandle_t cublaslt_ = nullptr;
};

}  // namespace pet::gpu
