// How pet-gpu lays a weight out on the device for the library that reads it: pure host functions,
// checked exactly by CPU tests. A Conv filter needs none: ONNX's [K, C/group, spatial...] is
// cuDNN's NCHW (NCDHW) filter format byte for byte, a 1-D filter [K, C/group, W] included, which
// cuDNN reads as [K, C/group, 1, W]; MatMul and Gemm operands stay as stored too, because the
// cuBLASLt layouts (gemm_config.h) describe them where they are.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace pet::gpu {

// A bias of one value per channel (cudnn_conv: output channels, cuDNN's 1xCx1..1 tensor) or per
// column (cublaslt_gemm: cuBLASLt's bias vector), as `count` floats: `bias` holds `count` values
// (any shape that varies along one axis only, [C], [1,C,1,1], [C,1,1], ...) or one value for all.
// Internal check for any other element count.
std::vector<float> per_channel_values(const Tensor& bias, int64_t count);

// Gemm's C broadcast to a full row-major [rows, columns] matrix, as ONNX broadcasts it ([],
// [columns], [1, columns], [rows, 1], [rows, columns]); what cuBLASLt reads as beta * C.
std::vector<float> gemm_c_matrix(const Tensor& c, int64_t rows, int64_t columns);

}  // namespace pet::gpu
