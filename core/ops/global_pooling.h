// Shape rule and kernel loop shared by GlobalAveragePool and GlobalMaxPool, and the input check
// every pool shares.
#pragma once

#include <span>
#include <vector>

#include "core/op_def.h"

namespace pet::ops {

// A pool's input is [N, C, spatial...] with at least one spatial dim, of one of `types`
// (f32 unless the pool computes more); refused otherwise.
ShapeCheck check_pool_input(const ShapeContext& context, DTypeSet types = {DType::f32});

// f32 [N, C, spatial...] -> [N, C, 1, ...]; refused for other ranks and element types.
ShapeResult infer_global_pool(const ShapeContext& context);

// out[n, c] = reduce(plane of x[n, c]) for every plane.
template <typename Reduce>
void reduce_planes(KernelContext& context, Reduce reduce) {
  const Tensor& x = context.input(0);
  int64_t planes = x.shape()[0] * x.shape()[1];
  int64_t plane_size = planes == 0 ? 0 : x.numel() / planes;
  auto in = x.f32();
  auto out = context.outputs[0].mutable_f32();
  for (int64_t p = 0; p < planes; ++p)
    out[static_cast<size_t>(p)] =
        reduce(in.subspan(static_cast<size_t>(p * plane_size), static_cast<size_t>(plane_size)));
}

}  // namespace pet::ops
