// The CPU's peak rate for a measured target, kept in the profile DB as the largest reading taken.
#include "search/cost/physical_floor.h"

#include <map>
#include <mutex>

#include <fmt/format.h>

#include "corrector/program_cost.h"
#include "kernels/runtime/cpu_peak.h"
#include "kernels/runtime/runtime.h"
#include "kernels/runtime/target_spec.h"

namespace pet::cost {
namespace {

// The DB keeps the rate as the time of one GFLOP at the peak, beside the target's kernel groups.
constexpr const char* kPeakKey = "@cpu-peak: 1 GFLOP at the arithmetic peak";

// The peak this process measured for `threads`, measured on first need: a peak measured under load
// reads low and never high, so a measuring run takes one fresh reading and keeps the larger.
runtime::CpuPeak fresh_peak(int threads) {
  static std::mutex mutex;
  static std::map<int, runtime::CpuPeak> measured;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = measured.find(threads);
  if (found == measured.end()) found = measured.emplace(threads, runtime::measure_cpu_peak(threads, 3)).first;
  return found->second;
}

}  // namespace

std::optional<PeakRate> peak_rate(const CostModel& cost) {
  const Measurement* measurement = cost.measurement();
  // The floor is a CPU's: a GPU target, timed on its card or replayed, has none here.
  if (!measurement || TargetSpec::parse(measurement->target.name).timed_elsewhere()) return std::nullopt;
  double recorded_us = 0;  // the recorded time of one GFLOP at the peak (0: none)
  PeakRate recorded{0, "", CostSource::replayed};
  if (std::optional<ProfileEntry> stored = cost.find_entry(kPeakKey); stored && stored->microseconds > 0) {
    recorded_us = stored->microseconds;
    recorded = {1e6 / recorded_us, stored->method, CostSource::replayed};
  }
  if (!measurement->runtime || !measurement->runtime->times())  // replayed: no CPU peak to read here
    return recorded_us > 0 ? std::optional<PeakRate>(recorded) : std::nullopt;
  runtime::CpuPeak peak = fresh_peak(measurement->target.threads);
  auto [gflops, what] = runtime::peak_in_precision(peak, measurement->runtime->compute_precision());
  // The recorded figure stands unless this reading beats it (then it is recorded, and replays, instead).
  if (recorded_us > 0 && (gflops <= 0 || 1e6 / gflops >= recorded_us)) return recorded;
  if (gflops <= 0) return std::nullopt;
  // The rate as the DB gives it back, so a measured run and its replay report the same figures.
  const double microseconds = 1e6 / gflops;
  PeakRate rate{1e6 / microseconds, fmt::format("{} ({})", what, peak.isa), CostSource::measured};
  cost.add_entry({.key = kPeakKey, .device = measurement->target.db_device(), .microseconds = microseconds,
                  .method = rate.what, .libraries = measurement->target.runtime, .date = today(), .spread_us = 0,
                  .runs = 3});
  return rate;
}

std::string floor_headroom(double written_fraction) {
  if (written_fraction >= 1)
    return "faster than the peak allows for these FLOPs: either the runtime computes them with fewer "
           "multiplies (a Winograd-like algorithm) or the recorded peak is low (measured under load), so the "
           "floor bounds no rewrite here";
  return fmt::format("a rewrite that keeps the FLOPs can gain at most {:.2f}x over the written model",
                     1 / written_fraction);
}

double dense_flops(const Graph& graph) {
  double flops = 0;
  for (const Node& node : graph.nodes())
    if (node.def->traits.compute_heavy) flops += corrector::node_cost(graph, node).flops;
  return flops;
}

}  // namespace pet::cost
