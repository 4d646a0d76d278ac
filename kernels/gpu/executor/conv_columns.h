// The column path of a convolution (pure host code, tested on a CPU): im2col into a buffer, then
// one cuBLASLt GEMM of the filter and the columns per image, then the conv epilogue where the step
// has one. For small images cuDNN leaves most of a large GPU idle (a 7x7 or 14x14 map at batch 1
// is a few output tiles, each looping over the whole reduction), while cuBLASLt splits the
// reduction; and any padding is a zero the im2col kernel writes, so pads that differ at the two
// ends of an axis run too. The loader times this path against cuDNN's choice and keeps the faster.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/gpu/codegen/kernel_text.h"
#include "kernels/gpu/executor/conv_config.h"
#include "kernels/gpu/executor/gemm_config.h"

namespace pet::gpu {

// The most bytes of columns a step may ask for (a larger im2col costs more than cuDNN's kernels).
constexpr int64_t kMaxColumnBytes = int64_t{64} << 20;

// cuDNN's kernels fill the card once the output has this many rows (images x pixels: a 128-row
// tile times a few filter tiles per SM); a convolution with symmetric pads and more is left to
// cuDNN, untimed, which keeps loads and NVRTC compilations short.
constexpr int64_t kColumnPathRows = 4096;

// A convolution as columns and a GEMM: per image n, y_n[F, P] = w[F, K] * columns_n[K, P] with
// K = C * the kernel's extents and P = the output's spatial extents, all row-major.
struct ColumnPlan {
  int64_t images = 0, rows = 0, pixels = 0;  // N, K, P
  int64_t bytes = 0;                         // the columns buffer: N * K * P floats
  // cuBLASLt's view: A the columns (P x K column-major per image), B the filter (K x F, shared by
  // every image), D the output (P x F per image, that is y_n row-major); no C, no epilogue. a and c
  // are kNoValue: the loader passes the columns buffer, and D is read as C times 0.
  GemmConfig gemm;
};

// The plan of `config`, or nullopt when the column path cannot run it: groups other than 1, a
// spatial rank other than 2 (a 1-D Conv is 2-D here already), columns beyond kMaxColumnBytes or
// counts beyond int.
std::optional<ColumnPlan> column_plan(const ConvConfig& config);

// Whether the host program offers `config` the column path: a plan exists, and its pads differ at
// the two ends (cuDNN cannot run it) or its output has at most kColumnPathRows rows.
bool column_path_offered(const ConvConfig& config);

// The im2col kernel of `config`: columns[n][k][p] = x[n][c][ih][iw], zero where (ih, iw) falls in
// the padding, for k = (c * KH + kh) * KW + kw and p = oh * OW + ow. Parameters in0 (x) and out0
// (the columns); the arguments name x and kNoValue (the loader's columns buffer).
codegen::GeneratedKernel column_kernel(const ConvConfig& config);

}  // namespace pet::gpu
