// pet-gpu check and pet-gpu time as library functions (tools/gpu_command.cpp only parses flags):
// a model run on the device and compared with pet's CPU executor, or timed as CUDA-graph replays,
// each with the text the command prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/default_seed.h"
#include "core/graph.h"
#include "kernels/gpu/executor/gpu_model.h"

namespace pet::gpu {

// What a check passes at: 1e-4 in strict FP32 (the bar), 1e-2 with TF32 tensor cores
// (reported, not a bar: TF32 keeps 10 mantissa bits, so errors near 3e-4 per product add up).
double default_tolerance(MathMode math);

struct CheckOptions {
  ExecutorOptions executor;
  std::string reference_folder;  // empty: random inputs from `seed`, outputs from pet's CPU executor
  uint64_t seed = kDefaultSeed;
  double tolerance = 0;  // 0: default_tolerance(executor.math)
};

struct OutputCheck {
  std::string name;
  double graph_error = 0;  // relative L2 error of the CUDA-graph replay
  double eager_error = 0;  // and of the eager run
  bool passed = false;
};

struct CheckReport {
  CudaStatus status;  // no_device or failed: nothing below was measured
  MathMode math = MathMode::strict;
  double tolerance = 0;
  std::string inputs;  // "reference folder 'DIR'" or "seed 2026, references from pet's CPU executor"
  LoadSummary load;
  std::vector<OutputCheck> outputs;
  bool passed() const;
};

// Loads `graph` (UserError for a model the executor refuses), runs it once as a CUDA graph and once
// eagerly, and compares every output with the reference.
CheckReport check_model(const Graph& graph, const CheckOptions& options);
// "no CUDA device: ..." alone without a device; else the load, one line per output, the verdict;
// with `steps` also one line per step saying what runs it.
std::string format_check_report(const Graph& graph, const CheckReport& report, bool steps);

struct TimeOptions {
  ExecutorOptions executor;
  uint64_t seed = kDefaultSeed;
  int warmup = 10;
  int runs = 100;
  bool per_step = false;  // also a profiled eager run, per-step medians
};

struct TimeReport {
  CudaStatus status;
  MathMode math = MathMode::tf32;
  LoadSummary load;
  RunSummary end_to_end;
  int warmup = 0;
  std::vector<StepTime> steps;  // with TimeOptions::per_step
};

TimeReport time_model(const Graph& graph, const TimeOptions& options);
std::string format_time_report(const Graph& graph, const TimeReport& report);

}  // namespace pet::gpu
