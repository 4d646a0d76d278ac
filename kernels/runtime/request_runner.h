// Times a misses file's requests in a runtime as the live code would have (each request one
// interleaved time_accepted call with its own warm-ups, runs and per-node profiling), writing each
// result as one flushed line, and stops cleanly at a deadline.
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "kernels/runtime/runtime.h"
#include "kernels/runtime/timing_request.h"

namespace pet::runtime {

struct MeasureOptions {
  double deadline_s = 60;  // no request is started after this many seconds
  // Seconds since the run began (a test passes its own clock).
  std::function<double()> elapsed_s;
  std::set<int> timed_before;  // ids of requests an earlier run timed (earlier_timings): left out
};

// The requests of one kind a run timed, and their wall time there (loads included).
struct KindTotals {
  int requests = 0;
  double seconds = 0;
};

struct MeasureOutcome {
  int timed = 0;         // requests whose results were written
  int left = 0;          // requests not started because of the deadline
  int timed_before = 0;  // requests left out because an earlier run timed them
  int refused = 0;       // models the runtime refused, over all requests timed
  std::string first_refusal;  // the first of those refusals, as the runtime said it
  std::string stopped;   // why the run ended, as the results file's last line says
  // By request kind, for a session to plan what its next measure stage reaches.
  std::map<std::string, KindTotals> by_kind;
};

// "in-context 3 in 41.2 s, kernel-groups 120 in 30.1 s" (kinds in name order); "none" when empty.
std::string by_kind_text(const MeasureOutcome& outcome);

// Writes device_line(device), then one result_line per request timed, then stop_line. Models are
// read from `models_folder` (weight-free textual IR) and serialized in the runtime's export form. A
// reference model the runtime refuses is recorded as refused with the others left empty, as a
// request whose every model was refused; a runtime failure (no device, a dead runtime) propagates.
MeasureOutcome measure_requests(Runtime& runtime, const std::vector<TimingRequest>& requests,
                                const std::string& models_folder, const MeasuringDevice& device, std::ostream& out,
                                const MeasureOptions& options);

// The ids of `requests` that the results files `earlier` (an earlier run's, on the same misses file)
// timed. UserError naming the file where it answers another misses file (a result whose request
// differs from the request of its id) or was timed on another card or runtime than `device`.
std::set<int> earlier_timings(const std::vector<std::string>& earlier, const std::vector<TimingRequest>& requests,
                              const MeasuringDevice& device);

}  // namespace pet::runtime
