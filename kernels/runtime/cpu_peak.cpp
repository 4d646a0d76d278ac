// The CPU's arithmetic peak: twelve independent chains of vector FMAs (float32) or bf16 dot products
// per thread, unrolled so they stay in registers, timed on all threads started together.
#include "kernels/runtime/cpu_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/error.h"

namespace pet::runtime {
namespace {

// Twelve accumulators, unrolled so they stay in registers: enough independent chains to cover an
// FMA latency of 4-6 cycles on two ports.
constexpr int kChains = 12;

// Where every round's results go, so no compiler may drop a kernel whose result is otherwise unused.
volatile float observed = 0;

// Each kernel returns the sum of every lane of every accumulator so the compiler keeps all the work.
// (Stored and summed by hand: GCC 12's _mm512_reduce_add_ps trips -Wuninitialized in its own header.)
float sum_of(const float* lanes, int count) {
  float sum = 0;
  for (int i = 0; i < count; ++i) sum += lanes[i];
  return sum;
}

__attribute__((target("avx512f"))) float lane_sum(const __m512* acc) {
  alignas(64) float lanes[kChains * 16];
  for (int i = 0; i < kChains; ++i) _mm512_store_ps(lanes + 16 * i, acc[i]);
  return sum_of(lanes, kChains * 16);
}

__attribute__((target("avx512f"))) float fma_avx512(int64_t iterations) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
  const __m512 scale = _mm512_set1_ps(0.999999f), shift = _mm512_set1_ps(1e-6f);
  for (int64_t n = 0; n < iterations; ++n)
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], scale, shift);
  return lane_sum(acc);
}

__attribute__((target("avx2,fma"))) float fma_avx2(int64_t iterations) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i) * 1e-3f);
  const __m256 scale = _mm256_set1_ps(0.999999f), shift = _mm256_set1_ps(1e-6f);
  for (int64_t n = 0; n < iterations; ++n)
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], scale, shift);
  alignas(32) float lanes[kChains * 8];
  for (int i = 0; i < kChains; ++i) _mm256_store_ps(lanes + 8 * i, acc[i]);
  return sum_of(lanes, kChains * 8);
}

// vdpbf16ps: 32 bf16 products summed pairwise into 16 float32 lanes, 64 FLOPs per instruction.
__attribute__((target("avx512f,avx512bf16"))) float dot_bf16(int64_t iterations) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_setzero_ps();
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80);  // bf16 1.0
  const __m512bh b = (__m512bh)_mm512_set1_epi16(0x3380);  // bf16 about 6e-8
  for (int64_t n = 0; n < iterations; ++n)
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
  return lane_sum(acc);
}

struct Kernel {
  float (*run)(int64_t);
  double flops_per_iteration;  // over all chains
};

// Runs `kernel` on `threads` threads started together; FLOP/s over the slowest thread's wall clock.
double rate(const Kernel& kernel, int threads, int64_t iterations) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<double> seconds(threads);
  std::vector<float> sink(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      auto start = std::chrono::steady_clock::now();
      sink[t] = kernel.run(iterations);
      seconds[t] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
  while (ready.load() < threads) std::this_thread::yield();
  go.store(true);
  for (std::thread& worker : workers) worker.join();
  double slowest = *std::max_element(seconds.begin(), seconds.end());
  for (float value : sink) observed = observed + value;  // the kernels' results stay live
  return kernel.flops_per_iteration * static_cast<double>(iterations) * threads / slowest;
}

double peak_gflops(const Kernel& kernel, int threads, int rounds, int64_t iterations) {
  double best = 0;
  for (int round = 0; round < rounds; ++round) best = std::max(best, rate(kernel, threads, iterations));
  return best / 1e9;
}

}  // namespace

CpuPeak measure_cpu_peak(int threads, int rounds, int64_t iterations) {
  PET_CHECK(threads >= 1 && rounds >= 1 && iterations >= 1, "measure_cpu_peak: bad arguments");
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  CpuPeak peak;
  peak.isa = avx512 ? "avx512f" : avx2 ? "avx2" : "none";
  if (avx512)
    peak.fp32_gflops = peak_gflops({fma_avx512, kChains * 16 * 2.0}, threads, rounds, iterations);
  else if (avx2)
    peak.fp32_gflops = peak_gflops({fma_avx2, kChains * 8 * 2.0}, threads, rounds, iterations);
  if (avx512 && __builtin_cpu_supports("avx512bf16"))
    peak.bf16_gflops = peak_gflops({dot_bf16, kChains * 32 * 2.0}, threads, rounds, iterations);
  return peak;
}

std::pair<double, std::string> peak_in_precision(const CpuPeak& peak, const std::string& precision) {
  if (precision == "bf16" && peak.bf16_gflops > 0) return {peak.bf16_gflops, "bf16 dot-product peak"};
  return {peak.fp32_gflops, "float32 FMA peak"};
}

}  // namespace pet::runtime

