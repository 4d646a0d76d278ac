// Timing GPU work with CUDA events after warm-up, and the median and quartiles of the runs.
#pragma once

#include <functional>
#include <vector>

#include "kernels/cuda_status.h"

namespace pet {

// The median and quartiles of a set of timed runs (all 0 for none).
struct RunSummary {
  double median = 0;
  double q1 = 0;
  double q3 = 0;
  int runs = 0;
};

RunSummary summarize_runs(std::vector<double> values);

// Launches `work` `warmup` times untimed, then `runs` times between two events on the default
// stream of the current device, appending each run's milliseconds to `ms`. Any CUDA error ends it
// and is returned (a failed launch inside `work` shows at the next event).
CudaStatus time_with_events(const std::function<void()>& work, int warmup, int runs, std::vector<double>& ms);

}  // namespace pet
