// The offline loop's line formats: a timing request pet-opt could not make on a GPU target (a
// "miss", with the weight-free models it times), and the timings a GPU machine returns for it,
// one JSON object per line so a run cut short keeps every line it finished.
#pragma once

#include <string>
#include <vector>

#include "kernels/runtime/runtime.h"

namespace pet::runtime {

// One call the live code would have made to Runtime::time_models (through time_accepted).
struct TimingRequest {
  int id = 0;                       // its line in the misses file, from 1
  std::string target;               // the target it prices: "h100"
  TimingOptions options;            // threads, warm-ups, runs, per-node, seed, and its purpose
  std::vector<std::string> models;  // weight-free textual IR files, relative to the misses file's folder
};

// The machine a results file was timed on: what its profile DB entries are keyed by.
struct MeasuringDevice {
  std::string card;     // "NVIDIA H100 80GB HBM3"
  std::string runtime;  // the runtime's version(): pet-gpu's math, cuDNN, cuBLASLt, NVRTC, driver, kernels
};

// The timings of one request: as time_accepted returns them (refused[i]: the runtime's message for
// a model it refused, whose Timing is empty).
struct TimingResult {
  TimingRequest request;  // echoed, so a results file says what it measured
  std::vector<Timing> timings;
  std::vector<std::string> refused;
  double seconds = -1;  // the request's wall time there, loads included; negative: not recorded
};

struct TimingResults {
  MeasuringDevice device;
  std::vector<TimingResult> results;
  std::string stopped;  // the run's stop reason; empty when the file ends without one (the run was cut)
};

std::string request_line(const TimingRequest& request);
std::string device_line(const MeasuringDevice& device);
std::string result_line(const TimingResult& result);
std::string stop_line(const std::string& reason);

// A misses file: UserError naming FILE:LINE and the bad field.
std::vector<TimingRequest> read_requests(const std::string& path);
// A results file. A last line cut off mid-write is left out (the run was stopped there); any other
// bad line is a UserError naming FILE:LINE.
TimingResults read_results(const std::string& path);
TimingResults parse_results(const std::string& text, const std::string& source);

// The folder a misses file's models are written to and read from: FILE.models beside it.
std::string models_folder(const std::string& misses_path);

}  // namespace pet::runtime
