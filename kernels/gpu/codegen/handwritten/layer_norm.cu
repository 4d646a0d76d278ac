// pet-gpu layer normalization, as core/ops/layer_normalization.cpp computes it: one block per row
// of kWidth contiguous elements (the axis and every later one); the mean, then the variance about
// it (two passes, in float), then (x - mean) / sqrt(variance + epsilon) * scale (+ bias), scale and
// bias broadcast to x's shape. With statistics it also writes each row's mean and 1/stddev.
// The generator puts before it: index, kRows, kWidth, kBlock, kEpsilon, kHasBias,
// kWithStatistics, scale_offset(row, column), bias_offset(row, column), block_reduce.
// Absent optional pointers (bias, the statistics) are null and never read or written.

extern "C" __global__ void __launch_bounds__(kBlock)
    PET_KERNEL_NAME(const float* __restrict__ x, const float* __restrict__ scale, const float* __restrict__ bias,
                    float* __restrict__ y, float* __restrict__ mean_out, float* __restrict__ inverse_stddev_out) {
  __shared__ float scratch[32];
  const float width = static_cast<float>(kWidth);
  for (index row = static_cast<index>(blockIdx.x); row < kRows; row += static_cast<index>(gridDim.x)) {
    const float* in = x + row * kWidth;
    float total = 0.0f;
    for (index k = static_cast<index>(threadIdx.x); k < kWidth; k += kBlock) total += in[k];
    const float mean = block_reduce(total, 0.0f, SumOf(), scratch) / width;
    float squares = 0.0f;
    for (index k = static_cast<index>(threadIdx.x); k < kWidth; k += kBlock) {
      const float deviation = in[k] - mean;
      squares += deviation * deviation;
    }
    const float variance = block_reduce(squares, 0.0f, SumOf(), scratch) / width;
    const float inverse = 1.0f / sqrtf(variance + kEpsilon);
    for (index k = static_cast<index>(threadIdx.x); k < kWidth; k += kBlock) {
      float value = (in[k] - mean) * inverse * scale[scale_offset(row, k)];
      if (kHasBias) value += bias[bias_offset(row, k)];
      y[row * kWidth + k] = value;
    }
    if (kWithStatistics && threadIdx.x == 0) {
      mean_out[row] = mean;
      inverse_stddev_out[row] = inverse;
    }
  }
}
