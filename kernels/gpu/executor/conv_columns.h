// The column path of a convolution (pure host code, tested on a CPU): im2col into a buffer, then
// one cuBLASLt GEMM of the filter and the columns per image, then the conv epilogue where the step
// has one. For small images cuDNN leaves most of a large GPU idle (a 7x7 or 14x14 map at batch 1
// is a few output tiles, each looping over the whole reduction), while cuBLASLt splits the
// reduction; and any padding is a zero the im2col kernel writes, so pads that differ at the two
// ends of an axis run too. The loader times this path against cuDNN's choice and keeps the faster.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

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

// How the step's bias, residual and ReLU are applied on the column path: inside the GEMM (C read
// with beta 1 as the bias expanded to the output's shape, or as the residual; cuBLASLt's RELU
// epilogue after it), or, with both a bias and a residual, by the generated conv epilogue after a
// plain GEMM.
enum class ColumnEpilogue : uint8_t { none, bias_as_c, residual_as_c, in_gemm_relu, kernel };

// A convolution as columns and a GEMM: per image n, y_n[F, P] = w[F, K] * columns_n[K, P] with
// K = C * the kernel's extents and P = the output's spatial extents, all row-major.
struct ColumnPlan {
  int64_t images = 0, rows = 0, pixels = 0;  // N, K, P
  int64_t bytes = 0;                         // the columns buffer: N * K * P floats, 0 when reads_input
  // A 1x1 kernel at stride 1 without pads: x itself is the columns (x_n[C, H*W]), no im2col.
  bool reads_input = false;
  ColumnEpilogue epilogue = ColumnEpilogue::none;
  // cuBLASLt's view: A the columns or x (P x K column-major per image), B the filter (K x F, shared by
  // every image), D the output (P x F per image, that is y_n row-major), C (when read) D's layout.
  // a is kNoValue (the loader passes the columns buffer); c is the residual, or kNoValue (D read
  // times 0, or with bias_as_c the loader's expanded bias).
  GemmConfig gemm;
};

// The plan of `config`, or nullopt when the column path cannot run it: groups other than 1, a
// spatial rank other than 2 (a 1-D Conv is 2-D here already), columns beyond kMaxColumnBytes or
// counts beyond int. Only a bias that is a weight is expanded into C at load; a computed one
// takes the epilogue kernel.
std::optional<ColumnPlan> column_plan(const ConvConfig& config);

// The bias_as_c plan's C: `bias` (one value per output channel) at every pixel of every image,
// [images][channels][pixels].
std::vector<float> column_bias_matrix(const std::vector<float>& bias, int64_t images, int64_t pixels);

// Whether the host program offers `config` the column path: a plan exists, and its pads differ at
// the two ends (cuDNN cannot run it) or its output has at most kColumnPathRows rows.
bool column_path_offered(const ConvConfig& config);

// The im2col kernel of `config` (internal check for a plan that reads the input itself): columns[n][k][p] = x[n][c][ih][iw], zero where (ih, iw) falls in
// the padding, for k = (c * KH + kh) * KW + kw and p = oh * OW + ow. Parameters in0 (x) and out0
// (the columns); the arguments name x and kNoValue (the loader's columns buffer).
codegen::GeneratedKernel column_kernel(const ConvConfig& config);

}  // namespace pet::gpu
