// The card's practical ceilings, measured: device-to-device copy bandwidth and the TF32 and BF16
// GEMM rates cuBLAS reaches, the yardsticks every later GPU figure is read against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda_status.h"
#include "kernels/event_timing.h"

namespace pet {

struct CeilingOptions {
  std::int64_t copy_bytes = std::int64_t{1} << 30;  // one buffer; the copy reads and writes it
  int gemm_size = 8192;                            // M = N = K
  int warmup = 3;
  int runs = 10;
  std::uint64_t seed = 20261128;                   // the random matrices and buffers (never zeros)
};

struct Ceiling {
  std::string name;      // "copy d2d", "gemm tf32", "gemm bf16"
  std::string unit;      // "GB/s" or "TFLOP/s"
  std::string method;    // what ran, e.g. "cublasGemmEx CUBLAS_COMPUTE_32F_FAST_TF32 8192^3"
  RunSummary rate;       // per run: work / time (so q1 of the rate is the slower quartile)
};

struct CeilingsReport {
  CudaStatus status;               // no_device without a GPU; the failing call otherwise
  std::vector<Ceiling> ceilings;   // those measured before a failure
};

// Measures on `device`. Never throws for a missing device or a CUDA or cuBLAS failure.
CeilingsReport measure_ceilings(int device, const CeilingOptions& options);

// One line per ceiling: name, median rate, quartiles, runs, method; or why there are none.
std::string format_ceilings(const CeilingsReport& report);

}  // namespace pet
