// pet-gpu's executor behind runtime::Runtime, the interface the CPU runtimes implement: serialized
// ONNX models in; end-to-end times (CUDA-graph replays between CUDA events, models interleaved
// round by round) and per-step times under the steps' node names out.
#pragma once

#include <memory>

#include "kernels/gpu/executor/gpu_model.h"
#include "kernels/runtime/runtime.h"

namespace pet::gpu {

// The runtime on options.device in options.math. Its calls throw UserError "no CUDA device: ..."
// where there is none, ModelRejected for a model the executor refuses, InternalError naming the
// CUDA call for a CUDA failure.
std::unique_ptr<runtime::Runtime> open_gpu_runtime(const ExecutorOptions& options = {});

}  // namespace pet::gpu
