// The axpy self-test kernel and its host driver; the only device code until the runtime lands.
#include "kernels/self_test.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/error.h"

namespace pet {
namespace {

__global__ void axpy_kernel(float a, const float* x, float* y, std::size_t n) {
  std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Owns one device allocation so that every early return frees it.
class DeviceFloats {
 public:
  DeviceFloats() = default;
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  ~DeviceFloats() {
    if (data_ != nullptr) cudaFree(data_);
  }

  cudaError_t allocate(std::size_t count) { return cudaMalloc(&data_, count * sizeof(float)); }
  float* data() const { return data_; }

 private:
  float* data_ = nullptr;
};

CudaStatus launch_axpy(int device, float a, std::span<const float> x, std::vector<float>& y) {
  std::size_t bytes = x.size() * sizeof(float);
  DeviceFloats x_device, y_device;
  if (CudaStatus s = cuda_status(cudaSetDevice(device), "cudaSetDevice"); !s.ok()) return s;
  if (CudaStatus s = cuda_status(x_device.allocate(x.size()), "cudaMalloc"); !s.ok()) return s;
  if (CudaStatus s = cuda_status(y_device.allocate(y.size()), "cudaMalloc"); !s.ok()) return s;
  cudaError_t copied = cudaMemcpy(x_device.data(), x.data(), bytes, cudaMemcpyHostToDevice);
  if (copied == cudaSuccess) copied = cudaMemcpy(y_device.data(), y.data(), bytes, cudaMemcpyHostToDevice);
  if (CudaStatus s = cuda_status(copied, "cudaMemcpy to device"); !s.ok()) return s;

  constexpr unsigned threads = 256;
  auto blocks = static_cast<unsigned>((x.size() + threads - 1) / threads);
  axpy_kernel<<<blocks, threads>>>(a, x_device.data(), y_device.data(), x.size());
  if (CudaStatus s = cuda_status(cudaGetLastError(), "axpy_kernel launch"); !s.ok()) return s;
  return cuda_status(cudaMemcpy(y.data(), y_device.data(), bytes, cudaMemcpyDeviceToHost),
                     "cudaMemcpy to host");
}

}  // namespace

AxpyResult run_axpy(int device, float a, std::span<const float> x, std::span<const float> y) {
  PET_CHECK(x.size() == y.size(), "axpy inputs differ in length");
  AxpyResult result;
  result.y.assign(y.begin(), y.end());
  if (!x.empty()) result.status = launch_axpy(device, a, x, result.y);
  if (!result.status.ok()) result.y.clear();
  return result;
}

CudaStatus self_test_device(int device) {
  // y = 2*i + 1 stays an exact integer in float for every i below 2^23, so equality is the check.
  constexpr std::size_t count = 1 << 20;
  std::vector<float> x(count), y(count, 1.0f);
  for (std::size_t i = 0; i < count; ++i) x[i] = static_cast<float>(i);
  AxpyResult result = run_axpy(device, 2.0f, x, y);
  if (!result.status.ok()) return result.status;
  for (std::size_t i = 0; i < count; ++i) {
    if (result.y[i] != 2.0f * x[i] + 1.0f) {
      return {CudaOutcome::failed, "axpy self-test: element " + std::to_string(i) + " is " +
                                       std::to_string(result.y[i]) + ", expected " +
                                       std::to_string(2.0f * x[i] + 1.0f)};
    }
  }
  return {};
}

}  // namespace pet
