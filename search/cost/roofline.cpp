// The analytic model's formulas: a wave-quantized tile model for tensor-core GEMMs and convs, and a
// bandwidth roofline whose efficiency rises with the bytes moved; the parameters come from the
// device spec, where each is documented.
#include "search/cost/roofline.h"

#include <algorithm>
#include <cmath>

namespace pet::cost {
namespace {

constexpr double kBytesPerElement = 4.0;  // f32 partial sums written and re-read by split-K

struct Seconds {
  double compute = 0;
  double memory = 0;
};

double tensor_core_efficiency(const EfficiencyCurves& c, const Workload& work) {
  double efficiency = work.engine == Engine::TensorCoreConv ? c.conv_peak : c.gemm_peak;
  auto aligned = [&](double channels) { return std::fmod(channels, c.tensor_core_alignment) == 0; };
  if (!aligned(work.reduction_channels) || !aligned(work.output_channels)) efficiency *= c.unaligned;
  if (work.dilated) efficiency *= c.dilated;
  if (work.grouped) efficiency *= c.grouped;
  return efficiency;
}

double memory_seconds(const DeviceSpec& device, double bytes, bool permutes) {
  if (bytes <= 0) return 0;
  double permute = permutes ? device.curves.permute_bandwidth : 1.0;
  return bytes / (device.bandwidth * bandwidth_efficiency(device.curves, bytes) * permute);
}

double overlapped(const Seconds& s, double unhidden) {
  return std::max(s.compute, s.memory) + unhidden * std::min(s.compute, s.memory);
}

// The library tiles the output into tile_m x tile_n blocks, one per SM per wave; a partial tile or
// a partial last wave costs as much as a full one, so small or oddly sized GEMMs waste SMs. Cutting
// the reduction into `split` slices (split-K) fills idle SMs at the price of writing and re-reading
// f32 partial sums.
Seconds tile_model(const DeviceSpec& device, const Workload& work, double tiles, double split) {
  const EfficiencyCurves& c = device.curves;
  const GemmShape& g = work.gemm;
  double sms = static_cast<double>(device.sm_count);
  double waves = std::ceil(tiles * split / sms);
  double tile_flops = 2.0 * c.tile_m * c.tile_n * std::ceil(g.k / split);
  double sm_rate = device.tf32_flops * tensor_core_efficiency(c, work) / sms;
  double partial_sums = split > 1 ? 2.0 * kBytesPerElement * g.batch * g.m * g.n * split : 0.0;
  return {waves * tile_flops / sm_rate, memory_seconds(device, work.bytes + partial_sums, false)};
}

// Like cuBLAS/cuDNN heuristics, takes the split-K factor (up to split_k_max, slices at least
// split_k_min_depth deep, only while SMs would idle) that gives the shortest time.
Seconds tensor_core_seconds(const DeviceSpec& device, const Workload& work) {
  const EfficiencyCurves& c = device.curves;
  const GemmShape& g = work.gemm;
  double sms = static_cast<double>(device.sm_count);
  double tiles = g.batch * std::ceil(g.m / c.tile_m) * std::ceil(g.n / c.tile_n);
  double deepest = std::max(1.0, std::floor(g.k / c.split_k_min_depth));
  double most = std::clamp(std::floor(sms / tiles), 1.0, std::min(c.split_k_max, deepest));
  Seconds best = tile_model(device, work, tiles, 1);
  for (double split = 2; split <= most; ++split) {
    Seconds candidate = tile_model(device, work, tiles, split);
    if (overlapped(candidate, c.unhidden) < overlapped(best, c.unhidden)) best = candidate;
  }
  return best;
}

}  // namespace

double bandwidth_efficiency(const EfficiencyCurves& curves, double bytes) {
  return curves.bandwidth_peak * bytes / (bytes + curves.bandwidth_half_bytes);
}

KernelTime kernel_time(const DeviceSpec& device, const Workload& work) {
  const EfficiencyCurves& c = device.curves;
  Seconds seconds;
  switch (work.engine) {
    case Engine::TensorCoreGemm:
    case Engine::TensorCoreConv: seconds = tensor_core_seconds(device, work); break;
    case Engine::DepthwiseConv:
      seconds = {work.flops / (device.fp32_flops * c.depthwise), memory_seconds(device, work.bytes, false)};
      break;
    case Engine::CudaCore:
      seconds = {work.flops / (device.fp32_flops * c.cuda_core), memory_seconds(device, work.bytes, work.permutes)};
      break;
  }
  KernelTime time;
  time.compute_us = seconds.compute * 1e6;
  time.memory_us = seconds.memory * 1e6;
  double fixed_us = work.engine == Engine::TensorCoreConv ? c.conv_fixed_us : 0.0;
  time.total_us = device.launch_overhead_us + fixed_us + overlapped(seconds, c.unhidden) * 1e6;
  return time;
}

const char* engine_name(Engine engine) {
  switch (engine) {
    case Engine::TensorCoreGemm: return "tensor-core-gemm";
    case Engine::TensorCoreConv: return "tensor-core-conv";
    case Engine::DepthwiseConv: return "depthwise-conv";
    case Engine::CudaCore: return "cuda-core";
  }
  return "unknown";
}

}  // namespace pet::cost
