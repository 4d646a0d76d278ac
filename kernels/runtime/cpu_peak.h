// measure_cpu_peak(): this CPU's arithmetic peak at N threads (independent vector FMA chains in
// float32, bf16 dot products where the CPU has them): the physical floor no runtime's kernel beats.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace pet::runtime {

struct CpuPeak {
  std::string isa;          // "avx512f", "avx2" or "none" (no vector FMA pet can measure)
  double fp32_gflops = 0;   // 0 when isa is "none"
  double bf16_gflops = 0;   // 0 unless the CPU has AVX512-BF16
};

// The best of `rounds` rounds, each `threads` threads started together running `iterations`
// iterations of twelve independent chains (a shared machine only ever slows a round down).
CpuPeak measure_cpu_peak(int threads, int rounds = 5, int64_t iterations = 20'000'000);

// The peak in the precision a runtime computes in ("bf16" or anything else for float32), and its
// name for reports: {GFLOP/s, "float32 FMA peak"}.
std::pair<double, std::string> peak_in_precision(const CpuPeak& peak, const std::string& precision);

}  // namespace pet::runtime
