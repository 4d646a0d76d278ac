// A target: what pet optimizes for, a runtime measured on this CPU at a thread count (ort-cpu,
// openvino-cpu), pet-gpu on a GPU card measured on a GPU machine (h100, h200), or an analytic GPU
// spec (a100, v100: estimated, never measured).
#pragma once

#include <string>

namespace pet::cost {

struct Target {
  std::string name;     // "ort-cpu", "openvino-cpu", "h100", or a device spec file
  bool measured = false;
  int threads = 0;      // the runtime's intra-op threads (measured targets; 1 on a GPU)
  std::string runtime;  // "onnxruntime 1.32.0", pet-gpu's version with its libraries and kernels (measured
                        // targets; empty: nothing recorded yet, every cost estimated)
  std::string cpu;      // the CPU model, or the GPU card, the times were taken on (measured targets)

  // What profile DB entries of this target are recorded under (their "device" field).
  std::string db_device() const;
  // One line for reports: "ort-cpu (onnxruntime 1.32.0, 1 thread, AMD EPYC)" or "h100 (estimated)".
  std::string describe() const;
};

// Reads a db_device() string back; nullopt-like empty name when it is not a measured target's.
Target parse_db_device(const std::string& device);

}  // namespace pet::cost
