// What pet optimizes for, parsed once at the edge (pet-opt's --target and --threads; later the
// Python API): a runtime measured on this machine at a thread count, a GPU measured on a GPU
// machine (its times imported into a profile DB and replayed here), or an analytic GPU spec. Code
// asks the spec what the target can do; no other code compares a target's name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/runtime/runtime.h"

namespace pet {

class TargetSpec {
 public:
  // The runtimes pet times models in here; `gpu` targets are timed in pet-gpu on a GPU machine
  // (h100, h200); `device` targets are priced without one (analytic GPU specs).
  enum class Kind { onnxruntime_cpu, openvino_cpu, gpu, device };

  // The default target: ONNX Runtime on this CPU, on every available core.
  TargetSpec() = default;

  // "ort-cpu", "openvino-cpu", a GPU measured elsewhere ("h100", "h200"), or an analytic device:
  // "a100", "v100" or a device spec file (checked when its spec is loaded). `runtime_threads` is
  // the measured runtime's intra-op threads (0: all cores); GPUs ignore it. UserError for an empty
  // name or negative threads.
  static TargetSpec parse(const std::string& name, int runtime_threads = 0);

  // The targets measured here, in a stable order: ort-cpu, openvino-cpu.
  static std::vector<std::string> measured_names();
  // The GPU targets measured on a GPU machine, in a stable order: h100, h200.
  static std::vector<std::string> gpu_names();

  const std::string& name() const { return name_; }
  Kind kind() const { return kind_; }
  // Priced by measured times (ort-cpu, openvino-cpu, h100, h200); analytic devices are estimated.
  bool measured() const { return kind_ != Kind::device; }
  // Timed in its runtime on this machine (ort-cpu, openvino-cpu).
  bool timed_here() const { return kind_ == Kind::onnxruntime_cpu || kind_ == Kind::openvino_cpu; }
  // Timed on a GPU machine: here its profile DB is replayed and what it lacks can be exported
  // (h100, h200).
  bool timed_elsewhere() const { return kind_ == Kind::gpu; }
  int runtime_threads() const { return runtime_threads_; }
  // The threads the runtime is timed with: runtime_threads, or every available core; 1 on a GPU.
  int resolved_threads() const;

  // Each correction is written as the standard-op lowering this runtime runs fastest, chosen by
  // timing the lowerings in it (ONNX Runtime).
  bool picks_correction_lowering_by_measurement() const { return kind_ == Kind::onnxruntime_cpu; }
  // The runtime can load pet's extension op, so corrections are written as one fused op unless the
  // user asks for a portable model (OpenVINO).
  bool runs_correction_extension_op() const { return kind_ == Kind::openvino_cpu; }
  // The runtime runs ONNX Runtime's contrib ops (domain com.microsoft: the fused Attention), so
  // finalize may fuse them, measured, unless the user asks for a portable model (ONNX Runtime).
  bool runs_onnx_runtime_ops() const { return kind_ == Kind::onnxruntime_cpu; }
  // Corrections are lowered to CUDA kernels pet emits (--emit-kernels), i.e. a GPU device.
  bool emits_cuda_kernels() const { return kind_ == Kind::device || kind_ == Kind::gpu; }
  // How the written model carries its corrections on this target, for messages.
  std::string correction_form() const;

  // Opens the runtime of a measured target: a CPU target's, or for a GPU pet-gpu's worker on this
  // machine's card in strict FP32 (the math outputs are checked in; --live times through its own
  // TF32 worker). UserError when it is unavailable here (saying what to install); an internal
  // check for an analytic spec.
  std::unique_ptr<runtime::Runtime> open_runtime() const;

 private:
  std::string name_ = "ort-cpu";
  Kind kind_ = Kind::onnxruntime_cpu;
  int runtime_threads_ = 0;
};

}  // namespace pet
