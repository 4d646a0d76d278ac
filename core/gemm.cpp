// OpenBLAS-backed sgemm, pinned to one thread, loaded on first use with a kernel chosen for this CPU.
//
// OpenBLAS picks its kernels when it is loaded, from the CPU models it knows: Debian's 0.3.21
// does not know newer CPUs (an Emerald Rapids Xeon, family 6 model 207, falls back to the
// SSE3 "Prescott" kernels, half the speed of its AVX-512 ones on ResNet-18). Linking it would load
// it before main, too early to say better; so it is opened here, after OPENBLAS_CORETYPE is set
// from the CPU's features when the user has not set it.
#include "core/gemm.h"

#include <cblas.h>
#include <dlfcn.h>
#include <stdlib.h>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {
namespace {

using SgemmFn = decltype(&cblas_sgemm);
using SetThreadsFn = decltype(&openblas_set_num_threads);
using CoreNameFn = decltype(&openblas_get_corename);

struct OpenBlas {
  SgemmFn sgemm = nullptr;
  CoreNameFn core_name = nullptr;
  std::string user_core_type;  // OPENBLAS_CORETYPE as the user set it
};

// The OpenBLAS kernel family for this CPU's vector units, or nothing to let OpenBLAS decide.
const char* core_type_for_this_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

// PET_OPENBLAS names the library when set (the Python wheel points it at the copy it carries);
// else the one pet was built against, else whichever the loader finds.
void* open_library() {
  if (const char* chosen = getenv("PET_OPENBLAS"); chosen && *chosen) {
    if (void* handle = dlopen(chosen, RTLD_NOW | RTLD_LOCAL)) return handle;
    throw UserError(fmt::format("PET_OPENBLAS={} cannot be loaded ({}); point it at an OpenBLAS shared library "
                                "(libopenblas.so.0) or unset it",
                                chosen, dlerror()));
  }
  for (const char* path : {PET_OPENBLAS_LIBRARY, "libopenblas.so.0"})
    if (void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)) return handle;
  throw InternalError(fmt::format("cannot load OpenBLAS ({} or libopenblas.so.0): {}", PET_OPENBLAS_LIBRARY, dlerror()));
}

template <typename Fn>
Fn symbol(void* handle, const char* name) {
  void* address = dlsym(handle, name);
  PET_CHECK(address != nullptr, fmt::format("OpenBLAS has no symbol {}", name));
  return reinterpret_cast<Fn>(address);
}

OpenBlas load_open_blas() {
  const char* user_core_type = getenv("OPENBLAS_CORETYPE");
  std::string requested = user_core_type ? user_core_type : "";
  if (const char* core = core_type_for_this_cpu(); core && !user_core_type) setenv("OPENBLAS_CORETYPE", core, 0);
  void* handle = open_library();
  symbol<SetThreadsFn>(handle, "openblas_set_num_threads")(1);
  return {symbol<SgemmFn>(handle, "cblas_sgemm"), symbol<CoreNameFn>(handle, "openblas_get_corename"), requested};
}

const OpenBlas& open_blas() {
  static const OpenBlas library = load_open_blas();
  return library;
}

}  // namespace

SgemmKernels sgemm_kernels() { return {open_blas().core_name(), open_blas().user_core_type}; }

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  open_blas().sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                    static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b,
                    static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

}  // namespace pet
