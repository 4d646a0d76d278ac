// Copy and GEMM ceilings of one GPU, on random data, timed with CUDA events after warm-up.
#include "kernels/ceilings.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <string>
#include <utility>

namespace pet {
namespace {

// A deterministic value in [-1, 1) for element i: a 64-bit mix of the seed and the index.
__device__ float random_unit(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void fill_random_f32(float* data, std::uint64_t count, std::uint64_t seed) {
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    data[i] = random_unit(seed, i);
}

__global__ void fill_random_bf16(__nv_bfloat16* data, std::uint64_t count, std::uint64_t seed) {
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    data[i] = __float2bfloat16(random_unit(seed, i));
}

// Owns one device allocation.
class DeviceBytes {
 public:
  DeviceBytes() = default;
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  ~DeviceBytes() {
    if (data_ != nullptr) cudaFree(data_);
  }
  CudaStatus allocate(std::uint64_t bytes) { return cuda_status(cudaMalloc(&data_, bytes), "cudaMalloc"); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
};

class CublasHandle {
 public:
  CublasHandle() = default;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  ~CublasHandle() {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  cublasStatus_t create() { return cublasCreate(&handle_); }
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

CudaStatus cublas_status(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return {};
  return {CudaOutcome::failed, std::string(call) + ": " + cublasGetStatusString(status)};
}

constexpr unsigned kFillBlocks = 1024;
constexpr unsigned kFillThreads = 256;

// Per-run rates from per-run milliseconds: `work_per_run` units of work, scaled to the unit.
RunSummary rates_of(const std::vector<double>& ms, double work_per_run) {
  std::vector<double> rates;
  for (double run_ms : ms) rates.push_back(work_per_run / (run_ms * 1e-3));
  return summarize_runs(std::move(rates));
}

CudaStatus measure_copy(const CeilingOptions& options, std::vector<Ceiling>& out) {
  auto bytes = static_cast<std::uint64_t>(options.copy_bytes);
  DeviceBytes source, destination;
  if (CudaStatus s = source.allocate(bytes); !s.ok()) return s;
  if (CudaStatus s = destination.allocate(bytes); !s.ok()) return s;
  fill_random_f32<<<kFillBlocks, kFillThreads>>>(source.as<float>(), bytes / sizeof(float), options.seed);
  if (CudaStatus s = cuda_status(cudaGetLastError(), "fill_random_f32 launch"); !s.ok()) return s;
  std::vector<double> ms;
  CudaStatus timed = time_with_events(
      [&] { cudaMemcpyAsync(destination.as<void>(), source.as<void>(), bytes, cudaMemcpyDeviceToDevice); },
      options.warmup, options.runs, ms);
  if (!timed.ok()) return timed;
  char method[96];
  std::snprintf(method, sizeof method, "cudaMemcpyAsync %.2f GiB, bytes read + written counted",
                static_cast<double>(bytes) / (1 << 30));
  out.push_back({"copy d2d", "GB/s", method, rates_of(ms, 2.0 * static_cast<double>(bytes) / 1e9)});
  return {};
}

// One GEMM ceiling: C = A * B, all n x n, A and B random, in the given storage and compute types.
CudaStatus measure_gemm(const CeilingOptions& options, cublasHandle_t handle, bool bf16, std::vector<Ceiling>& out) {
  int n = options.gemm_size;
  auto elements = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
  std::uint64_t element_bytes = bf16 ? sizeof(__nv_bfloat16) : sizeof(float);
  DeviceBytes a, b, c;
  for (DeviceBytes* matrix : {&a, &b, &c})
    if (CudaStatus s = matrix->allocate(elements * element_bytes); !s.ok()) return s;
  for (auto [matrix, salt] : {std::pair{&a, 1ull}, std::pair{&b, 2ull}}) {
    if (bf16)
      fill_random_bf16<<<kFillBlocks, kFillThreads>>>(matrix->as<__nv_bfloat16>(), elements, options.seed + salt);
    else
      fill_random_f32<<<kFillBlocks, kFillThreads>>>(matrix->as<float>(), elements, options.seed + salt);
  }
  if (CudaStatus s = cuda_status(cudaGetLastError(), "fill_random launch"); !s.ok()) return s;
  cudaDataType_t type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  cublasComputeType_t compute = bf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
  auto gemm = [&] {
    cublasStatus_t status = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.as<void>(), type, n,
                                         b.as<void>(), type, n, &beta, c.as<void>(), type, n, compute,
                                         CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS) last = status;
  };
  std::vector<double> ms;
  CudaStatus timed = time_with_events(gemm, options.warmup, options.runs, ms);
  if (CudaStatus s = cublas_status(last, "cublasGemmEx"); !s.ok()) return s;
  if (!timed.ok()) return timed;
  double flops = 2.0 * static_cast<double>(n) * n * n;
  std::string method = std::string("cublasGemmEx ") + (bf16 ? "CUBLAS_COMPUTE_32F " : "CUBLAS_COMPUTE_32F_FAST_TF32 ") +
                       std::to_string(n) + "^3, " + (bf16 ? "bf16" : "fp32") + " in and out";
  out.push_back({bf16 ? "gemm bf16" : "gemm tf32", "TFLOP/s", method, rates_of(ms, flops / 1e12)});
  return {};
}

CudaStatus measure_all(int device, const CeilingOptions& options, std::vector<Ceiling>& out) {
  if (CudaStatus s = cuda_status(cudaSetDevice(device), "cudaSetDevice"); !s.ok()) return s;
  if (CudaStatus s = measure_copy(options, out); !s.ok()) return s;
  CublasHandle handle;
  if (CudaStatus s = cublas_status(handle.create(), "cublasCreate"); !s.ok()) return s;
  if (CudaStatus s = measure_gemm(options, handle.get(), false, out); !s.ok()) return s;
  return measure_gemm(options, handle.get(), true, out);
}

}  // namespace

CeilingsReport measure_ceilings(int device, const CeilingOptions& options) {
  CeilingsReport report;
  int count = 0;
  report.status = cuda_status(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (report.status.ok() && device >= count)
    report.status = {count == 0 ? CudaOutcome::no_device : CudaOutcome::failed,
                     "cudaGetDeviceCount: no device " + std::to_string(device) + " (there are " +
                         std::to_string(count) + ")"};
  if (report.status.ok()) report.status = measure_all(device, options, report.ceilings);
  return report;
}

}  // namespace pet
