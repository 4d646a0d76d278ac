// The physical floor of a measured target: a model's Conv/MatMul/Gemm FLOPs at the CPU's arithmetic
// peak in the precision the runtime computes in, and how close a measured time comes to it (what is
// left for any rewrite that keeps the FLOPs).
#pragma once

#include <optional>
#include <string>

#include "core/graph.h"
#include "search/cost/cost_model.h"

namespace pet::cost {

// The CPU's peak rate as a measured target computes (kernels/runtime/cpu_peak.h), kept in the profile
// DB so a replayed DB reproduces the report. A measuring run reads it once per thread count and
// records its reading only where it beats the recorded one: load makes a reading low, never high.
struct PeakRate {
  double gflops = 0;
  std::string what;   // "float32 FMA peak (avx512f)"
  CostSource source = CostSource::measured;
};

// nullopt for an analytic target, for a replayed DB without the entry, and on a CPU without a vector
// FMA pet can measure.
std::optional<PeakRate> peak_rate(const CostModel& cost);

// What the written model's share of the floor (floor time / measured time) leaves to a rewrite
// that keeps the FLOPs: "a rewrite that keeps the FLOPs can gain at most 1.18x over the written
// model"; at or above 1, that the runtime computes these ops with fewer multiplies than the count
// (a Winograd-like algorithm) or the peak in the profile DB is low, so the floor bounds nothing.
std::string floor_headroom(double written_fraction);

// FLOPs of the graph's compute-heavy nodes (OpTraits::compute_heavy: Conv, ConvTranspose, MatMul,
// Gemm; a multiply-add counts as 2).
double dense_flops(const Graph& graph);

}  // namespace pet::cost
