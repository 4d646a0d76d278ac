// emit_cuda_kernel(): lowers one correction to the CUDA C source of a single fused kernel that
// recomputes the box from the full inputs (the slices folded into its index arithmetic), applies
// any fused activation, and writes the box in place into the mutant's output (the Overwrite).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/graph.h"
#include "corrector/correct.h"

namespace pet::corrector {

// An elementwise op that follows the corrected output in the program and is fused into the
// kernel: the kernel then writes op(recomputed box) into the buffer of that op's output.
struct FusedActivation {
  std::string op;      // Relu, LeakyRelu, Sigmoid, Tanh, Elu, HardSigmoid, HardSwish, Softplus, ...
  Attributes attrs;    // missing attributes take the op's ONNX defaults
};

struct LaunchConfig {
  int64_t grid = 1;    // blocks; the kernel's grid-stride loop covers any remainder
  int64_t block = 256; // threads per block
  std::string to_string() const;  // "grid 3, block 256"
};

struct CudaEmitOptions {
  std::optional<FusedActivation> activation;
  int64_t block = 256;
  int64_t max_grid = 1024;  // enough blocks to fill an H100 several times over
};

struct CudaKernel {
  std::string name;                 // pet_correction_<16 hex digits of the source's content hash>
  std::string source;               // one extern "C" __global__ function, nothing else
  std::vector<std::string> params;  // value names of the full inputs, in parameter order; the
                                    // output buffer (float*, written in place) is the last parameter
  int64_t elements = 0;             // output elements of the box: one loop iteration each
  LaunchConfig launch;
};

// The activation a node applies to its whole output (core/ops/fused_activation.h: a LayoutOverwrite
// with activation="relu" after finalize); nullopt when it has none. The correction kernels that
// write into that node's output take it as CudaEmitOptions::activation, so the boxes they write
// hold activated values like the rest of the output.
std::optional<FusedActivation> fused_activation_of(const Node& node);

// One thread per element up to `max_grid` blocks; the grid-stride loop does the rest.
LaunchConfig launch_config(int64_t elements, int64_t block = 256, int64_t max_grid = 1024);

// Acts when the original computes the correction's output with one Conv (1-3 spatial dims),
// MatMul or Gemm on graph inputs or constants (its own fused activation included), followed by
// zero or more of the supported elementwise activations. UserError (naming the node and op) for any other original, and for an
// unsupported fused activation. Deterministic: equal corrections give byte-equal source and name.
CudaKernel emit_cuda_kernel(const Graph& original, const Correction& correction, const CudaEmitOptions& options = {});

}  // namespace pet::corrector
