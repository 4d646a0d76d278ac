// A convolution through cuDNN's graph API (its backend descriptors): y = conv(x, w) as a
// one-operation graph, the engine configurations cuDNN's heuristics propose for it, each finalized
// into an execution plan that the loader times against the legacy API's choice. On Hopper the
// legacy API's algorithms reach few of cuDNN's kernels; the graph API reaches the rest.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/gpu/executor/conv_config.h"
#include "kernels/gpu/executor/math_mode.h"

namespace pet::gpu {

// The operands' address alignments in bytes (powers of two), which the plans are built for.
struct ConvAlignments {
  int64_t x = 4, w = 4, y = 4;
  std::string key() const;
};

struct ConvEngineGraph;  // the descriptors one configuration's plans share

struct EnginePlan {
  std::shared_ptr<ConvEngineGraph> graph;  // keeps the operation graph alive while the plan lives
  std::shared_ptr<void> plan;              // a finalized execution plan (a cudnnBackendDescriptor_t)
  int64_t engine = -1;                     // cuDNN's global engine index
  int64_t workspace_bytes = 0;
  bool tensor_core = false;
  std::string describe() const;  // "engine 12 (tensor cores)"
};

struct EnginePlans {
  std::vector<EnginePlan> plans;  // the heuristics' order, then the fallback list's
  std::string note;               // why there are none, or what was left out
};

// Up to `limit` execution plans of conv(x, w) -> y for `config` in `math`: engines whose numerical
// notes the mode forbids (strict: tensor cores; both: down-converted inputs, reduced-precision
// reductions, non-determinism), engines that compile at run time (seconds each), plans beyond
// `max_workspace` bytes and configurations cuDNN cannot finalize are left out. Never throws for what
// cuDNN refuses: the note says it. With `only_engine` set, the one plan of that global engine index
// (an earlier load's decision), or none.
EnginePlans conv_engine_plans(cudnnHandle_t handle, const ConvConfig& config, MathMode math,
                              const ConvAlignments& alignments, int64_t max_workspace, int limit,
                              int64_t only_engine = -1);

// Enqueues `plan` on `stream` (cudnnSetStream on `handle` first) with the operands and a workspace
// of at least plan.workspace_bytes; cuDNN's status.
cudnnStatus_t run_engine_plan(cudnnHandle_t handle, cudaStream_t stream, const EnginePlan& plan, void* x, void* w,
                              void* y, void* workspace);

}  // namespace pet::gpu
