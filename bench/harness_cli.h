// pet_harness's command line: flags to HarnessOptions, then the runs and the report files.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "bench/harness_run.h"

namespace pet::bench {

inline constexpr const char* kHarnessHelp = R"(usage: pet_harness [options]

Optimizes the evaluation models in the modes none, taso, pet and the ablations pet-eq-only and
pet-neq-only, and writes harness.md, harness.csv, cost.png, speedup.png and search_time.png.

options:
  --models-dir DIR       folder with <model>_b<batch>/model.onnx (default: the build's models)
  --models A,B,...       models to run (default: all evaluation models; missing ones are skipped
                         and listed)
  --batches 1,16         batch sizes (default 1,16)
  --modes M,...          modes (default none,taso,pet,pet-eq-only,pet-neq-only)
  --beam N               programs kept per search round (default 8)
  --time-limit SECONDS   wall clock per search (default 50, as pet-opt)
  --target NAME|FILE     what to optimize for: ort-cpu or openvino-cpu, measured on this machine
                         (the report shows end-to-end times); or h100, a100, v100 or a GPU spec
                         file, estimated (default ort-cpu)
  --threads N            the runtime's threads the models are optimized for (default: all cores)
  --profile-db FILE      measured times, read and extended (default: pet-opt's for the target)
  --replay               read the profile DB only: nothing is timed, the report is reproducible
  --select-runs N        timed rounds of each end-to-end selection, interleaved (default 10)
  --out DIR              output folder (default build/harness)
  --seed N               seed for every random draw (default 2026)
  --verbose              print the search's own progress lines
  -h, --help             this text

exit status: 0 all runs succeeded and passed the differential check; 1 otherwise; 2 user error.
)";

// Flags to options; UserError on unknown flags, bad numbers, modes, batch sizes or targets.
HarnessOptions parse_harness_args(const std::vector<std::string>& args, const std::string& default_models_dir);

// The whole tool: parse, run, write; returns the exit status.
int harness_main(const std::vector<std::string>& args, const std::string& default_models_dir, std::ostream& out,
                 std::ostream& err);

}  // namespace pet::bench
