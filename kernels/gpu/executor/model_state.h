// What a loaded GpuModel holds, in the order it is built and (reversed) torn down: the graph and
// its host program, the session it was loaded in (its own, or one shared with other loads), the
// device, the values' memory, the workspace, the loaded kernels, one runner per step and the
// captured forward pass. Private to the executor.
#pragma once

#include <memory>
#include <vector>

#include "kernels/gpu/executor/cuda_graph.h"
#include "kernels/gpu/executor/device_context.h"
#include "kernels/gpu/executor/device_memory.h"
#include "kernels/gpu/executor/device_session.h"
#include "kernels/gpu/executor/gpu_model.h"
#include "kernels/gpu/executor/host_program.h"
#include "kernels/gpu/executor/own_kernels.h"
#include "kernels/gpu/executor/step_runner.h"
#include "kernels/gpu/executor/value_memory.h"

namespace pet::gpu {

struct GpuModel::State {
  Graph graph;  // the model's own copy: the plan and the memory refer to it
  HostProgram program;
  ExecutorOptions options;
  std::shared_ptr<DeviceSession> session;
  std::shared_ptr<DeviceContext> context;
  std::unique_ptr<ValueMemory> memory;
  DeviceBuffer workspace;  // shared by every step; the runners read its address when they enqueue
  DeviceBuffer columns;    // the column path's im2col output, shared by its steps (they run in turn)
  std::shared_ptr<LoadedKernels> kernels;
  std::vector<std::unique_ptr<StepRunner>> runners;  // by plan step
  std::unique_ptr<CudaGraph> forward;
  LoadSummary summary;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State();

  cudaStream_t stream() const { return context->stream(); }
  void enqueue_all(cudaStream_t stream);
  // Every step enqueued and waited for in turn, so a CUDA failure names the step that caused it
  // ("step 3 (cudnn-conv, node 'conv1', op Conv): ..."); for checks and the load's warm-up.
  void run_steps_checked();
};

// Builds the device side of `state` (program, graph, options and session set): device, memory,
// kernels, runners with their algorithms, workspace, the captured forward pass. CudaFailure on a
// CUDA error.
void load_on_device(GpuModel::State& state);

}  // namespace pet::gpu
