// ONNX Runtime's CPU execution provider as a measured target, through a long-lived Python worker.
#pragma once

#include <memory>

#include "kernels/runtime/runtime.h"

namespace pet::runtime {

// Starts kernels/runtime/ort_worker.py once under $PET_PYTHON (default: python3 from PATH) and
// asks for its version. UserError when that python cannot start or cannot import onnxruntime,
// naming the python and how to install ONNX Runtime. The runtime is safe to share across threads.
std::unique_ptr<Runtime> open_ort_runtime();

}  // namespace pet::runtime
