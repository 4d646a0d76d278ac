// ONNX Runtime's CPU backend: a Python worker process (kernels/runtime/ort_worker.py) answering one
// JSON line per request line (kernels/runtime/json_worker.h).
#include "kernels/runtime/ort_runtime.h"

#include <cstdlib>

#include <fmt/format.h>

#include "core/data_path.h"
#include "kernels/runtime/json_worker.h"

namespace pet::runtime {
namespace {

// The worker script, under the data folder (core/data_path.h): its wheel has no C/C++ headers.
constexpr const char* kOrtWorker = "kernels/runtime/ort_worker.py";

std::string worker_python() {
  const char* given = std::getenv("PET_PYTHON");
  return given != nullptr && *given != '\0' ? given : "python3";
}

WorkerSpec ort_worker() {
  std::string python = worker_python();
  WorkerSpec spec;
  spec.target = "ort-cpu";
  spec.command = {python, data_path(kOrtWorker)};
  spec.name = "ONNX Runtime";
  spec.folder_prefix = "pet-ort";
  spec.unavailable = [python](const std::string& reason) {
    return UserError(fmt::format("ONNX Runtime is not available for the python '{}': {}. Install it with `bash "
                                 "scripts/install-deps.sh` or `{} -m pip install onnxruntime`, or set PET_PYTHON to "
                                 "a python that has it",
                                 python, reason, python));
  };
  // ONNX Runtime's CPU build lacks kernels for some ops on some element types (bfloat16 MatMul).
  spec.refusal_hint = [](const std::string& error) -> std::string {
    if (error.find("NOT_IMPLEMENTED") == std::string::npos) return "";
    return "; ONNX Runtime's CPU provider has no kernel for that op on that element type: optimize for --target "
           "openvino-cpu, or cast the model to float32";
  };
  spec.form = {.onnx_runtime_ops = true};  // its contrib ops (the fused Attention) run as one kernel each
  return spec;
}

}  // namespace

std::unique_ptr<Runtime> open_ort_runtime() { return std::make_unique<JsonWorkerRuntime>(ort_worker()); }

}  // namespace pet::runtime
