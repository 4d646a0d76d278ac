// OpenBLAS-backed sgemm, pinned to one thread for reproducible results.
#include "core/gemm.h"

#include <cblas.h>

namespace pet {

static void pin_threads_once() {
  static const bool pinned = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)pinned;
}

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  pin_threads_once();
  if (m == 0 || n == 0) return;
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b,
              static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

}  // namespace pet
