// pet-gpu MaxPool and AveragePool over 1 to 3 spatial dims, as core/ops/max_pool.cpp and
// average_pool.cpp compute them; fewer spatial dims come as leading unit ones (extent 1, kernel 1,
// stride 1, no pads). One thread per output element walks its window: tap k of an axis sits at
// output * stride - pad_begin + k * dilation; taps outside the input are skipped. AveragePool
// divides by the taps inside the input, or with count_include_pad by the taps inside the padded
// input (those before its end padding ends; a ceil_mode window may reach beyond it). A window
// wholly in the padding gives -inf (max) or 0 (average).
// The generator puts before it: index, kBlock, kPlanes (batch x channels), kInD/H/W, kOutD/H/W,
// kKernelD/H/W, kStrideD/H/W, kDilationD/H/W, kPadD/H/W (front), kPadEndD/H/W, kMax,
// kCountIncludePad.

extern "C" __global__ void __launch_bounds__(kBlock)
    PET_KERNEL_NAME(const float* __restrict__ input, float* __restrict__ output) {
  constexpr index kOutputs = kPlanes * kOutD * kOutH * kOutW;
  for (index i = static_cast<index>(blockIdx.x) * kBlock + static_cast<index>(threadIdx.x); i < kOutputs;
       i += static_cast<index>(gridDim.x) * kBlock) {
    const index ow = i % kOutW, oh = i / kOutW % kOutH, od = i / (kOutW * kOutH) % kOutD;
    const index plane = i / (kOutW * kOutH * kOutD);
    const float* in = input + plane * (kInD * kInH * kInW);
    float best = __int_as_float(0xff800000);
    float total = 0.0f;
    index inside = 0, padded = 0;
    for (index kd = 0; kd < kKernelD; ++kd) {
      const index d = od * kStrideD - kPadD + kd * kDilationD;
      for (index kh = 0; kh < kKernelH; ++kh) {
        const index h = oh * kStrideH - kPadH + kh * kDilationH;
        for (index kw = 0; kw < kKernelW; ++kw) {
          const index w = ow * kStrideW - kPadW + kw * kDilationW;
          padded += d < kInD + kPadEndD && h < kInH + kPadEndH && w < kInW + kPadEndW;
          if (d < 0 || d >= kInD || h < 0 || h >= kInH || w < 0 || w >= kInW) continue;
          const float value = in[(d * kInH + h) * kInW + w];
          best = value > best ? value : best;
          total += value;
          ++inside;
        }
      }
    }
    const index divisor = kCountIncludePad ? padded : inside;
    output[i] = kMax ? best : (divisor > 0 ? total / static_cast<float>(divisor) : 0.0f);
  }
}
