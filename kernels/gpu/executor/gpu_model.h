// pet-gpu's executor: a graph loaded on one CUDA device (weights prepared once, one activation
// arena at the plan's offsets, one workspace, every own kernel's CUBIN loaded once, cuDNN and
// cuBLASLt algorithms chosen once) and run from host tensors, replayed as one CUDA graph, profiled
// step by step, or timed with CUDA events.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/default_seed.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "kernels/cuda_status.h"
#include "kernels/event_timing.h"
#include "kernels/gpu/executor/host_program.h"
#include "kernels/gpu/executor/math_mode.h"

namespace pet::gpu {

// The column path (conv_columns.h) of the convolutions the host program offers it: timed against
// cuDNN's choice at load and the faster kept, always taken, or never (a convolution only the
// column path runs, with pads that differ at the two ends, then refuses the load).
enum class ColumnPath : uint8_t { timed, always, off };
std::string to_string(ColumnPath path);
// "timed", "always" or "off"; UserError naming the flag and the choices for another word.
ColumnPath column_path_named(const std::string& name);

struct ExecutorOptions {
  MathMode math = MathMode::strict;
  int device = 0;
  GemmSearch gemm;  // cuBLASLt's algorithms timed at load (gemm_config.h)
  // TF32 convolutions: plans of cuDNN's graph API timed against the legacy API's choice at load,
  // the faster kept; 0: the legacy API alone (strict mode always takes it).
  int conv_engines = 8;
  ColumnPath conv_columns = ColumnPath::timed;
  // A file of earlier loads' convolution decisions (conv_decision_cache.h) read and extended by
  // this one; empty: every load times the plans itself.
  std::string conv_cache;
  unsigned compile_threads = 0;  // NVRTC threads; 0: every core
  uint64_t seed = kDefaultSeed;  // the random data algorithm searches run on
};

// What loading decided: one line per step (its backend and choice), and the sizes.
struct LoadSummary {
  std::string device;              // "GPU 0: NVIDIA H100 80GB HBM3, cuDNN 9.19.0, cuBLASLt 13.0.0"
  std::vector<std::string> steps;  // "step 3 cudnn-conv 'conv1' (+2 nodes): cuDNN fused ..."
  size_t kernels = 0;              // distinct own kernels compiled and loaded
  double compile_wall_ms = 0;
  double load_ms = 0;  // the whole load, compilation and searches included
  // Its parts: the context (stream and handles), compiling and loading own kernels, memory with
  // random data, the runners with their algorithm searches, the checked eager pass, the capture.
  double context_ms = 0, kernels_ms = 0, memory_ms = 0, searches_ms = 0, eager_ms = 0, capture_ms = 0;
  size_t kernels_reused = 0;                // own kernels an earlier load of the session compiled
  size_t kernels_recalled = 0;              // own kernels another process compiled (the kernel store)
  int64_t searches = 0, searches_reused = 0;  // algorithm searches run, and taken from earlier loads
  // "load T ms (context T, kernels T, memory T, searches T, eager pass T, capture T); K of N own
  // kernels reused and R read from the kernel store, S of M algorithm searches reused"
  std::string timing_line() const;
  int64_t arena_bytes = 0, workspace_bytes = 0, weight_bytes = 0;
  size_t graph_nodes = 0;  // nodes of the captured CUDA graph
  std::string fallback;    // why the load fell back to the legacy convolution API, when it did
};

// One step of a profiled eager run, under its nodes' names (main node first, as the plan lists them).
struct StepTime {
  int step = 0;
  std::string kind;                // "cudnn-conv", ...
  std::string op;                  // the main node's op (a conv or GEMM step's, else the last node's)
  std::vector<std::string> nodes;  // the step's node names, ascending node order
  RunSummary ms;                   // over the timed runs
  bool patch = false;              // computes only patches of corrections (GpuPlan's computes_patch)
};

class GpuModel {
 public:
  struct State;
  explicit GpuModel(std::unique_ptr<State> state);
  GpuModel(const GpuModel&) = delete;
  GpuModel& operator=(const GpuModel&) = delete;
  ~GpuModel();

  // Each below: UserError for inputs of the wrong count or type (in the graph's input order),
  // CudaFailure (kernels/gpu/executor/cuda_check.h) naming the CUDA call that failed.

  // One replay of the captured forward pass; the arena and outputs are poisoned first, so an
  // element no step wrote reads NaN.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  // The same, every step enqueued eagerly (no graph) and waited for, so a failure names its step.
  std::vector<Tensor> run_eager(const std::vector<Tensor>& inputs);
  // `warmup` eager runs, then `runs` with CUDA events between the steps: per-step times.
  std::vector<StepTime> profile(const std::vector<Tensor>& inputs, int warmup, int runs);
  // `warmup` graph replays, then `runs` timed each between two events on the model's stream.
  RunSummary time(const std::vector<Tensor>& inputs, int warmup, int runs);

  const LoadSummary& summary() const;
  // Records in the summary why this model was loaded without the graph API's convolutions.
  void note_fallback(std::string why);

 private:
  std::unique_ptr<State> state_;
};

struct GpuModelLoad {
  CudaStatus status;                // no_device where there is none; failed with the failing call
  std::unique_ptr<GpuModel> model;  // set when status.ok()
};

class DeviceSession;  // device_session.h: what loads in one process share

// Prepares the model on the host first (UserError naming the step, node and op the executor
// cannot run, before any device is touched), then loads it on options.device.
GpuModelLoad load_gpu_model(const Graph& graph, const ExecutorOptions& options = {});
// The same for a host program prepare_host_program made from `graph`, in `session` where given
// (its device must be options.device; the loads of one session share the context, the compiled
// kernels and the algorithm searches' results), else in a session of its own.
GpuModelLoad load_gpu_model(const Graph& graph, HostProgram program, const ExecutorOptions& options = {},
                            std::shared_ptr<DeviceSession> session = nullptr);

}  // namespace pet::gpu
