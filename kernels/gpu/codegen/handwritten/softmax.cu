// pet-gpu softmax and log-softmax along one axis, as core/ops/softmax_common.cpp computes them: one
// block per line of kCount elements spaced kInner apart, the line's maximum subtracted before exp
// so it never overflows. Line r starts at (r / kInner) * kCount * kInner + r % kInner: the
// tensor is [lines / kInner, kCount, kInner] and the line runs along the middle.
// The generator puts before it: index, kLines, kCount, kInner, kBlock, kLogarithmic, block_reduce.

// A line of at most kBlock * 8 elements is read once: each thread keeps its kHeld elements (and
// then their exps) in registers between the passes; a longer line is read three times.
constexpr index kHeld = (kCount + kBlock - 1) / kBlock;
constexpr bool kHolds = kHeld <= 8;

extern "C" __global__ void __launch_bounds__(kBlock)
    PET_KERNEL_NAME(const float* __restrict__ input, float* __restrict__ output) {
  __shared__ float scratch[32];
  const float negative_infinity = __int_as_float(0xff800000);
  float held[kHolds ? kHeld : 1];
  for (index line = static_cast<index>(blockIdx.x); line < kLines; line += static_cast<index>(gridDim.x)) {
    const index start = line / kInner * kCount * kInner + line % kInner;
    const float* in = input + start;
    float* out = output + start;
    float peak = negative_infinity;
    if (kHolds) {
      for (index h = 0; h < kHeld; ++h) {
        const index k = static_cast<index>(threadIdx.x) + h * kBlock;
        held[h] = k < kCount ? in[k * kInner] : negative_infinity;
        peak = fmaxf(peak, held[h]);
      }
    } else {
      for (index k = static_cast<index>(threadIdx.x); k < kCount; k += kBlock) peak = fmaxf(peak, in[k * kInner]);
    }
    peak = block_reduce(peak, negative_infinity, MaxOf(), scratch);
    float total = 0.0f;
    if (kHolds) {
      for (index h = 0; h < kHeld; ++h) {
        const index k = static_cast<index>(threadIdx.x) + h * kBlock;
        if (k < kCount) {
          if (!kLogarithmic) held[h] = expf(held[h] - peak);
          total += kLogarithmic ? expf(held[h] - peak) : held[h];
        }
      }
    } else {
      for (index k = static_cast<index>(threadIdx.x); k < kCount; k += kBlock) total += expf(in[k * kInner] - peak);
    }
    total = block_reduce(total, 0.0f, SumOf(), scratch);
    const float log_total = kLogarithmic ? logf(total) : 0.0f;
    const float scale = 1.0f / total;
    if (kHolds) {
      for (index h = 0; h < kHeld; ++h) {
        const index k = static_cast<index>(threadIdx.x) + h * kBlock;
        if (k < kCount) out[k * kInner] = kLogarithmic ? held[h] - peak - log_total : held[h] * scale;
      }
    } else {
      for (index k = static_cast<index>(threadIdx.x); k < kCount; k += kBlock)
        out[k * kInner] = kLogarithmic ? in[k * kInner] - peak - log_total : expf(in[k * kInner] - peak) * scale;
    }
  }
}
