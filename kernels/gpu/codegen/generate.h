// pet-gpu's own kernels: the CUDA C source of one plan step, every shape and stride baked in,
// for NVRTC to compile to CUBIN (compile_to_cubin in kernels/nvrtc_compile.h). Host code only:
// generating needs no CUDA runtime and no device.
#pragma once

#include <vector>

#include "core/graph.h"
#include "kernels/gpu/codegen/kernel_text.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu::codegen {

// Whether pet-gpu generates the kernel of steps of this kind: elementwise, transpose, layout, pad,
// slice, concat, split, gather, expand, copy and correction steps (generated per step) and softmax,
// layer-norm, pool and reduce steps (hand-written templates, constants filled in). The other kinds
// run on cuDNN or cuBLASLt.
bool generates_kernel(StepKind kind);

// The kernel of `plan.steps[step]`; `graph` is the graph the plan was made from. Deterministic:
// equal steps (same ops, attributes, types and scalar constants) give byte-equal source and name,
// wherever they are. UserError naming the node and op for a step of a kind generates_kernel
// refuses, and for a node whose form no generated kernel takes (a pool of more than 3 spatial
// dims, an elementwise op without a CUDA expression, a MaxPool with its indices output).
GeneratedKernel generate_kernel(const Graph& graph, const GpuPlan& plan, int step);

// Every step of a generated kind, in plan order, with its index in the plan.
struct PlannedKernel {
  int step = 0;
  GeneratedKernel kernel;
};
std::vector<PlannedKernel> generate_kernels(const Graph& graph, const GpuPlan& plan);

}  // namespace pet::gpu::codegen
