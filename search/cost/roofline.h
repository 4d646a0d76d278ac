// The analytic roofline: one kernel's time on a device from its FLOP and byte counts and, for
// tensor-core work, its GEMM shape. Every formula of the analytic model lives in roofline.cpp.
#pragma once

#include "search/cost/cost_model.h"

namespace pet::cost {

// Which hardware path a kernel takes.
enum class Engine {
  TensorCoreGemm,  // MatMul/Gemm through cuBLAS (TF32 for f32)
  TensorCoreConv,  // Conv-class ops through cuDNN implicit GEMM (TF32 for f32)
  DepthwiseConv,   // one input channel per group: CUDA-core kernels
  CudaCore,        // elementwise, layout, reductions, pooling, normalization
};

// A compute-heavy op seen as `batch` independent [m x k] by [k x n] products (conv: m = batch x
// output pixels, n = output channels per group, k = input channels per group x kernel size).
struct GemmShape {
  double batch = 1;
  double m = 1;
  double n = 1;
  double k = 1;
};

struct Workload {
  double flops = 0;
  double bytes = 0;
  Engine engine = Engine::CudaCore;
  GemmShape gemm;         // tensor-core engines only
  // Channel counts the tensor cores need aligned: reduction channels (per group) and output
  // channels (per group) for convs, K and N for GEMMs.
  double reduction_channels = 0;
  double output_channels = 0;
  bool dilated = false;   // a conv with some dilation > 1
  bool grouped = false;   // a grouped conv with several channels per group
  bool permutes = false;  // a layout op whose perm is not the identity
};

struct KernelTime {
  double compute_us = 0;
  double memory_us = 0;
  double total_us = 0;  // launch overhead + max(compute, memory)
};

KernelTime kernel_time(const DeviceSpec& device, const Workload& work);

// The engine's name as reports print it: "tensor-core-gemm", "tensor-core-conv", "depthwise-conv",
// "cuda-core".
const char* engine_name(Engine engine);

// Fraction of peak bandwidth reached when moving `bytes` (rises with size, saturates).
double bandwidth_efficiency(const EfficiencyCurves& curves, double bytes);

}  // namespace pet::cost
