// Single-precision GEMM for the reference executor, backed by OpenBLAS.
#pragma once

#include <cstdint>
#include <string>

namespace pet {

// C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C, row-major with leading dimensions.
// OpenBLAS (Debian's libopenblas) gives ResNet-18 in well under a second on one core; writing
// our own blocked GEMM would only reproduce it more slowly. Its thread count is pinned to one
// (see gemm.cpp) so results are bit-identical from run to run and machine to machine load.
// Its kernels are chosen from this CPU's vector units (AVX-512, AVX2) unless OPENBLAS_CORETYPE
// says otherwise, so results may differ in the last bits between CPU generations.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// The OpenBLAS kernel family sgemm runs ("SkylakeX", "Haswell", ...), and the OPENBLAS_CORETYPE
// the user had set when OpenBLAS was loaded (empty: pet chose). Loads OpenBLAS.
struct SgemmKernels {
  std::string name;
  std::string user_core_type;
};
SgemmKernels sgemm_kernels();

}  // namespace pet
