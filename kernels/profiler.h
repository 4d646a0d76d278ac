// The op profiler: times one graph node on the GPU (cuDNN for Conv, cuBLAS for MatMul/Gemm, own
// kernels for layout and elementwise ops) with CUDA events, after warm-up, as a median of runs.
#pragma once

#include <optional>
#include <string>

#include "core/graph.h"
#include "kernels/devices.h"

namespace pet {

struct ProfileSettings {
  int warmup = 5;
  int runs = 30;
};

struct OpMeasurement {
  double microseconds = 0;  // median
  std::string method;       // "cudnn IMPLICIT_PRECOMP_GEMM", "cublas GemmStridedBatchedEx TF32", ...
};

// Conv, MatMul and Gemm, and every layout-only or elementwise op.
bool profilable(const Node& node);

// Times `node` on the current device with inputs of its types (contents do not change the time).
// nullopt, with `why`, for a node the profiler cannot map (ConvTranspose, asymmetric conv pads,
// broadcast batched MatMul); UserError when a CUDA call fails.
std::optional<OpMeasurement> profile_node(const Graph& graph, const Node& node, const ProfileSettings& settings,
                                          std::string& why);

// "CUDA 13.0, cuDNN 9.19.0, cuBLAS 13.1.0", as profile DB entries record them.
std::string library_versions(const CudaVersions& versions);

// pet-profile's refusal on a machine without a GPU: what is wrong, why, and what to do.
std::string no_gpu_message(const CudaStatus& status);

}  // namespace pet
