// Single-precision GEMM for the reference executor, backed by OpenBLAS.
#pragma once

#include <cstdint>

namespace pet {

// C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C, row-major with leading dimensions.
// OpenBLAS (Debian's libopenblas) gives ResNet-18 in well under a second on one core; writing
// our own blocked GEMM would only reproduce it more slowly. Its thread count is pinned to one
// (see gemm.cpp) so results are bit-identical from run to run and machine to machine load.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace pet
