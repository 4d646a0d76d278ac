// What one cublaslt_gemm step asks of cuBLASLt, read from the graph alone (pure host code, tested
// on a CPU). cuBLASLt is column-major and pet row-major: pet's D[M, N] is cuBLASLt's D^T, so
// cuBLASLt's A is the node's B and its B the node's A, and the per-column bias of D is cuBLASLt's
// per-row bias vector.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {

// How a cublaslt_gemm step chooses its algorithm at load: the heuristic's first `candidates`, and
// its first `split_bases` again with K split 2 to 16 ways where cuBLASLt can split them (0: none
// split, for an A/B of the split candidates), each run once and then `runs` times.
struct GemmSearch {
  int candidates = 4;
  int runs = 3;
  int split_bases = 2;
};

// cuBLASLt's column-major view of one operand: rows x cols with leading dimension `ld`, and the
// distance between consecutive matrices of a strided batch (0: one matrix for every batch).
struct LtLayout {
  uint64_t rows = 0;
  uint64_t cols = 0;
  int64_t ld = 0;
  int64_t batch_stride = 0;
  bool operator==(const LtLayout&) const = default;
};

// Where one call of a step whose batch dims broadcast partially starts: offsets in elements from
// the start of cuBLASLt's A and B and of D (C, when read, shares D's).
struct GemmCallOffsets {
  int64_t a = 0, b = 0, d = 0;
  bool operator==(const GemmCallOffsets&) const = default;
};

// The most calls one step may make (a partial broadcast's outer batch).
constexpr int64_t kMaxGemmCalls = 64;

struct GemmConfig {
  ValueId a = kNoValue;     // cuBLASLt's A: the node's B
  ValueId b = kNoValue;     // cuBLASLt's B: the node's A
  ValueId c = kNoValue;     // Gemm's C when beta != 0, or a MatMul's residual (beta 1), else kNoValue
                            // (cuBLASLt then reads D as C, times 0)
  bool c_expanded = false;  // C is a weight broadcast to the full [M, N] at load (gemm_c_matrix)
  ValueId d = kNoValue;     // the step's output
  ValueId bias = kNoValue;  // a weight of N or 1 values, or a computed C of N (Gemm, beta 1), added
                            // per column (CUBLASLT_EPILOGUE_BIAS)
  bool relu = false;
  bool transpose_a = false, transpose_b = false;  // cuBLASLt's op on its A and B
  LtLayout layout_a, layout_b, layout_d;          // C shares D's layout
  int64_t m = 0, n = 0, k = 0;  // cuBLASLt's: m = the node's N, n = its M (a folded batch's rows included)
  int batch = 1;
  // Empty: one call. Else one strided batch of `batch` per entry, in order: the outer batch dims
  // where one operand broadcasts and the other does not.
  std::vector<GemmCallOffsets> calls;
  float alpha = 1, beta = 0;

  // The heuristic's cache key: shapes, layouts, transposes, epilogue and whether C is read.
  std::string key() const;
};

// The config of `step` (a cublaslt_gemm step of `graph`), or why cuBLASLt cannot run it: batch
// dims that broadcast partially beyond kMaxGemmCalls strided batches, a computed C that
// broadcasts otherwise than one value per column with beta 1 (that one is the BIAS epilogue's
// vector), an activation other than ReLU, a count beyond int. A MatMul whose B is one matrix
// folds A's batch into its rows: one larger GEMM. Batch dims that broadcast partially ([2,12]
// against [1,12]) are one strided batch over their longest trailing run of equal extents, called
// once per index of the dims before it.
struct GemmPreparation {
  std::optional<GemmConfig> config;
  std::string refusal;  // empty when config is set
};
GemmPreparation prepare_gemm(const Graph& graph, const Step& step);

// A tensor read or written in place of a MatMul operand or output: `value`'s elements at `strides`
// over the operand's `dims` (a Transpose's source, its dims permuted).
struct StridedView {
  ValueId value = kNoValue;
  std::vector<int64_t> dims, strides;
};

// The dense view of `value`.
StridedView dense_view(const Graph& graph, ValueId value);
// `source`'s dense view as Transpose(perm) reads it: dim i of the result is `perm[i]` of source.
StridedView transposed_view(const Graph& graph, ValueId source, const std::vector<int64_t>& perm);

// `prepared` (a MatMul step's config, one call) read from and written to strided views: A and B
// (the node's operands) and D, the epilogue kept. nullopt where a view's matrix has no unit stride,
// its batch dims do not collapse into one stride, or D's rows are not contiguous.
std::optional<GemmConfig> strided_matmul_config(const GemmConfig& prepared, const StridedView& a, const StridedView& b,
                                                const StridedView& d);

}  // namespace pet::gpu
