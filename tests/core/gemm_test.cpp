// sgemm: the product against a plain triple loop, and the OpenBLAS kernels chosen for this CPU
// (before: OpenBLAS 0.3.21 ran its SSE3 "Prescott" kernels on CPUs newer than it knows).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <strings.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/gemm.h"

namespace pet::testing {
namespace {

TEST(Gemm, TransposedProductMatchesATripleLoop) {
  const int64_t m = 37, n = 29, k = 53;
  std::mt19937 engine(7);
  std::uniform_real_distribution<float> draw(-1, 1);
  std::vector<float> a(static_cast<size_t>(k * m)), b(static_cast<size_t>(k * n)), c(static_cast<size_t>(m * n), 1.0f);
  for (float& x : a) x = draw(engine);
  for (float& x : b) x = draw(engine);
  // C = 2 * A^T B + 0.5 * C, with A stored [k, m] and B [k, n].
  sgemm(true, false, m, n, k, 2.0f, a.data(), m, b.data(), n, 0.5f, c.data(), n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double expected = 0.5;
      for (int64_t p = 0; p < k; ++p) expected += 2.0 * a[static_cast<size_t>(p * m + i)] * b[static_cast<size_t>(p * n + j)];
      EXPECT_NEAR(c[static_cast<size_t>(i * n + j)], expected, 1e-4) << i << "," << j;
    }
}

TEST(Gemm, KernelsFitThisCpusVectorUnits) {
  SgemmKernels kernels = sgemm_kernels();
  const std::string& kernel = kernels.name;
  ASSERT_FALSE(kernel.empty());
  if (!kernels.user_core_type.empty()) GTEST_SKIP() << "OPENBLAS_CORETYPE=" << kernels.user_core_type << " set by the caller";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd")) {
    EXPECT_EQ(strcasecmp(kernel.c_str(), "SkylakeX"), 0) << kernel;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_EQ(strcasecmp(kernel.c_str(), "Haswell"), 0) << kernel;
  }
  EXPECT_NE(strcasecmp(kernel.c_str(), "Prescott"), 0) << "the generic SSE3 kernels on a CPU with AVX";
}

}  // namespace
}  // namespace pet::testing
