// The two precisions the executor computes float32 in: strict FP32 for checks against pet's CPU
// executor, and TF32 tensor cores for timing (what cuDNN and cuBLASLt run by default on Hopper).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pet::gpu {

enum class MathMode : uint8_t {
  strict,  // cuDNN CUDNN_FMA_MATH, cuBLASLt CUBLAS_COMPUTE_32F: IEEE FP32 products and sums
  tf32,    // cuDNN CUDNN_DEFAULT_MATH (TF32 tensor cores allowed), cuBLASLt CUBLAS_COMPUTE_32F_FAST_TF32
};

inline std::string to_string(MathMode mode) { return mode == MathMode::strict ? "strict" : "tf32"; }

}  // namespace pet::gpu
