// Weight layouts: expansions of broadcast weights into the dense vectors and matrices cuDNN and
// cuBLASLt read.
#include "kernels/gpu/executor/weight_layout.h"

#include <fmt/format.h>

#include "core/error.h"

namespace pet::gpu {

std::vector<float> per_channel_values(const Tensor& bias, int64_t count) {
  PET_CHECK(bias.dtype() == DType::f32, fmt::format("a bias of type {}", bias.type().to_string()));
  PET_CHECK(bias.numel() == count || bias.numel() == 1,
            fmt::format("a bias of shape {} for {} channels", bias.shape().to_string(), count));
  std::span<const float> values = bias.f32();
  if (bias.numel() == count) return {values.begin(), values.end()};
  return std::vector<float>(static_cast<size_t>(count), values[0]);
}

std::vector<float> gemm_c_matrix(const Tensor& c, int64_t rows, int64_t columns) {
  PET_CHECK(c.dtype() == DType::f32, fmt::format("a Gemm C of type {}", c.type().to_string()));
  const Shape& shape = c.shape();
  PET_CHECK(shape.rank() <= 2, fmt::format("a Gemm C of shape {}", shape.to_string()));
  int64_t c_rows = shape.rank() == 2 ? shape[0] : 1;
  int64_t c_columns = shape.rank() >= 1 ? shape[shape.rank() - 1] : 1;
  PET_CHECK((c_rows == 1 || c_rows == rows) && (c_columns == 1 || c_columns == columns),
            fmt::format("a Gemm C of shape {} does not broadcast to [{},{}]", shape.to_string(), rows, columns));
  std::span<const float> values = c.f32();
  std::vector<float> matrix(static_cast<size_t>(rows * columns));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < columns; ++j)
      matrix[static_cast<size_t>(i * columns + j)] =
          values[static_cast<size_t>((c_rows == 1 ? 0 : i) * c_columns + (c_columns == 1 ? 0 : j))];
  return matrix;
}

}  // namespace pet::gpu
