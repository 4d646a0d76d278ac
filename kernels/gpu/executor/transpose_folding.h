// Transposes folded into the MatMuls beside them (pure host code, tested on a CPU): a Transpose
// step whose output only a MatMul reads, or that alone reads a MatMul's output, costs a pass over
// the tensor, while cuBLASLt reads and writes any matrix with a unit stride, a leading dimension
// and a batch stride. Such a MatMul's GEMM reads the transpose's source (or writes its destination)
// at the transposed strides and the transpose step runs nothing; BERT's attention has four per
// layer (Q, K and V into heads, the heads back).
#pragma once

#include "core/graph.h"
#include "kernels/gpu/executor/host_program.h"

namespace pet::gpu {

// Folds each transpose step it can into the GEMM step beside it: that step's config then reads or
// writes through the transpose (strided_matmul_config), and the transpose's StepProgram says
// folded_into. A transpose is folded only where the bytes the GEMM reads (or writes) early or late
// hold no other value in between: no arena value sharing them is alive from the step after the
// transpose to the GEMM (or from the GEMM to the step before the transpose).
void fold_transposes(const Graph& graph, HostProgram& program);

}  // namespace pet::gpu
