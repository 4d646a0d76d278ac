// Everything the executor decides before it touches a device (pure host code, tested on a CPU):
// the plan, and per step the backend that runs it with its cuDNN or cuBLASLt config or its
// generated kernel. A step the executor cannot run refuses the whole model here, by name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "kernels/gpu/codegen/kernel_text.h"
#include "kernels/gpu/executor/conv_config.h"
#include "kernels/gpu/executor/gemm_config.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {

enum class Backend : uint8_t {
  cudnn,      // cudnn_conv steps
  cublaslt,   // cublaslt_gemm steps
  generated,  // the kinds kernels/gpu/codegen generates: own CUDA C compiled by NVRTC
};
std::string to_string(Backend backend);

struct StepProgram {
  Backend backend = Backend::generated;
  std::optional<ConvConfig> conv;                    // cudnn
  std::optional<codegen::GeneratedKernel> epilogue;  // cudnn with a bias, residual or ReLU: the kernel
                                                     // run after the convolution when the chosen
                                                     // algorithm rules out cuDNN's fused call or cuDNN
                                                     // refuses it
  bool column_path = false;                          // cudnn: the column path is offered (conv_columns.h)
  std::optional<codegen::GeneratedKernel> columns;   // its im2col kernel, unless it reads x itself
  std::optional<GemmConfig> gemm;                    // cublaslt
  std::optional<codegen::GeneratedKernel> kernel;    // generated
  int folded_into = -1;  // a transpose step the GEMM of that step reads or writes through: runs nothing
};

struct HostProgram {
  GpuPlan plan;
  std::vector<StepProgram> steps;  // by plan step

  // Every distinct kernel (generated steps, im2col kernels and conv epilogues), by name, in
  // first-use order.
  std::vector<codegen::GeneratedKernel> distinct_kernels() const;
  // "step 3 (cudnn-conv, node 'conv1', op Conv)".
  std::string describe_step(int step) const;
};

// Plans `graph`, prepares every step and folds the transposes beside MatMuls into their GEMMs
// (transpose_folding.h). UserError from the plan or the generator for a node they
// refuse, and "pet-gpu's executor cannot run step S (KIND, node 'NAME', op OP): WHY" for a step
// whose kind has no backend here or whose config neither its library nor the column path can run.
HostProgram prepare_host_program(const Graph& graph);

// What pet-gpu runs `program` as, decided without a device: one line per step ("step 3
// (cublaslt_gemm, node 'fc', op Gemm) + 1 node: cuBLASLt <config>", "...: kernel <name>, grid G,
// block B", a folded transpose "folded into step S's GEMM"), then a line counting the steps by
// backend, the distinct own kernels and the activation arena. Deterministic.
std::string format_host_program(const HostProgram& program);

}  // namespace pet::gpu
