// The harness's three charts as data: estimated cost per mode, pet's speedups, search time.
#pragma once

#include "bench/harness_report.h"
#include "bench/png_chart.h"

namespace pet::bench {

// One group per model and batch (in run order), one bar per mode: cost / cost of none.
BarChart cost_chart(const HarnessTable& table);
// One group per model and batch: pet's speedup over taso and over none.
BarChart speedup_chart(const HarnessTable& table);
// One group per model and batch, one bar per mode: search wall-clock seconds.
BarChart search_time_chart(const HarnessTable& table);

}  // namespace pet::bench
