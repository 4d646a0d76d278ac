// DeviceContext: the device probe first (so a machine without one gets no_device, not a failure),
// then the stream and the library handles; a constructor that fails releases what it made.
#include "kernels/gpu/executor/device_context.h"

#include <fmt/format.h>

#include "kernels/gpu/executor/cuda_check.h"

namespace pet::gpu {
namespace {

void require_device(int device) {
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) throw CudaFailure({CudaOutcome::no_device, "cudaGetDeviceCount: reported 0 devices"});
  if (device < 0 || device >= count)
    throw CudaFailure({CudaOutcome::failed, fmt::format("no CUDA device {} (there are {})", device, count)});
}

}  // namespace

DeviceContext::DeviceContext(int device) : device_(device) {
  require_device(device);
  try {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaFree(nullptr), "cudaFree(nullptr) (context creation)");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check_cudnn(cudnnCreate(&cudnn_), "cudnnCreate");
    check_cudnn(cudnnSetStream(cudnn_, stream_), "cudnnSetStream");
    check_cublas(cublasLtCreate(&cublaslt_), "cublasLtCreate");
  } catch (...) {
    release();
    throw;
  }
}

DeviceContext::~DeviceContext() {
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  release();
}

void DeviceContext::release() {
  if (cublaslt_ != nullptr) cublasLtDestroy(cublaslt_);
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  cublaslt_ = nullptr;
  cudnn_ = nullptr;
  stream_ = nullptr;
}

void DeviceContext::synchronize() const { check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

int64_t DeviceContext::free_memory() const {
  size_t free = 0, total = 0;
  check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return static_cast<int64_t>(free);
}

}  // namespace pet::gpu
