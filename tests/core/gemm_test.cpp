// sgemm: the product against a plain triple loop, the OpenBLAS kernels chosen for this CPU
// (before: OpenBLAS 0.3.21 ran its SSE3 "Prescott" kernels on CPUs newer than it knows), and the
// library PET_OPENBLAS names (the Python wheel's own copy).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <strings.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "core/error.h"
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

// OpenBLAS is loaded once per process, so each case runs in a fresh copy of this test binary
// (the threadsafe death-test style re-executes it) with PET_OPENBLAS set before the first sgemm.
int first_sgemm_exit_code() {
  float a = 2, b = 3, c = 0;
  try {
    sgemm(false, false, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
  } catch (const UserError& error) {
    fprintf(stderr, "%s\n", error.what());
    return 3;
  }
  return c == 6 ? 0 : 4;
}

TEST(Gemm, PetOpenblasNamesTheLibraryToLoad) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("PET_OPENBLAS", "libopenblas.so.0", 1);
        exit(first_sgemm_exit_code());
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Gemm, AnUnloadablePetOpenblasSaysWhichAndHowToFixIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("PET_OPENBLAS", "/nonexistent/libopenblas.so.0", 1);
        exit(first_sgemm_exit_code());
      },
      ::testing::ExitedWithCode(3),
      "PET_OPENBLAS=/nonexistent/libopenblas.so.0 cannot be loaded .*point it at an OpenBLAS shared library.*or unset it");
}

}  // namespace
}  // namespace pet::testing
