// The harness's three charts as data: cost per mode, speedups (estimated or measured), search time.
#pragma once

#include "bench/harness_report.h"
#include "bench/png_chart.h"

namespace pet::bench {

// One group per model and batch (in run order), one bar per mode: estimated (or, on a measured
// target, predicted) cost / cost of none.
BarChart cost_chart(const HarnessTable& table);
// One group per model and batch: pet's estimated speedup over taso and over none; on a measured
// target, one bar per mode: the written model's measured speedup over its input.
BarChart speedup_chart(const HarnessTable& table);
// One group per model and batch, one bar per mode: search wall-clock seconds.
BarChart search_time_chart(const HarnessTable& table);

}  // namespace pet::bench
