// Strided copies with dimension coalescing, so transposes and slices move contiguous runs.
#include "core/ops/strided_copy.h"

#include <cstring>

#include "core/error.h"

namespace pet::ops {

StridedView dense_view(const Shape& shape) { return {0, shape.dims(), shape.strides()}; }

// Drops unit dimensions and fuses neighbours that are contiguous in the source, so the
// innermost loop runs over as many elements as possible.
static StridedView coalesce(const StridedView& view) {
  StridedView result{view.offset, {}, {}};
  for (size_t i = 0; i < view.dims.size(); ++i) {
    if (view.dims[i] == 1) continue;
    if (!result.dims.empty() && result.strides.back() == view.strides[i] * view.dims[i]) {
      result.dims.back() *= view.dims[i];
      result.strides.back() = view.strides[i];
      continue;
    }
    result.dims.push_back(view.dims[i]);
    result.strides.push_back(view.strides[i]);
  }
  return result;
}

template <typename Element>
static void copy_run(const std::byte* from, int64_t count, int64_t stride, std::byte* to) {
  const auto* source = reinterpret_cast<const Element*>(from);
  auto* destination = reinterpret_cast<Element*>(to);
  for (int64_t i = 0; i < count; ++i) destination[i] = source[i * stride];
}

// Copies `count` elements that lie `stride` elements apart into a dense run.
static void copy_run_bytes(const std::byte* from, int64_t count, int64_t stride, size_t width, std::byte* to) {
  if (stride == 1) {
    std::memcpy(to, from, static_cast<size_t>(count) * width);
    return;
  }
  switch (width) {
    case 1: copy_run<uint8_t>(from, count, stride, to); return;
    case 2: copy_run<uint16_t>(from, count, stride, to); return;
    case 4: copy_run<uint32_t>(from, count, stride, to); return;
    case 8: copy_run<uint64_t>(from, count, stride, to); return;
    default:
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(to + static_cast<size_t>(i) * width, from + static_cast<ptrdiff_t>(i * stride) * static_cast<ptrdiff_t>(width), width);
  }
}

void copy_strided(const Tensor& source, const StridedView& view, Tensor& destination) {
  PET_CHECK(source.dtype() == destination.dtype(), "copy_strided dtype mismatch");
  int64_t total = 1;
  for (int64_t d : view.dims) total *= d;
  PET_CHECK(total == destination.numel(), "copy_strided view does not cover the destination");
  if (total == 0) return;
  StridedView fused = coalesce(view);
  auto width = static_cast<ptrdiff_t>(dtype_size(source.dtype()));
  const std::byte* base = source.raw();
  std::byte* out = destination.mutable_raw();
  if (fused.dims.empty()) {  // a single element
    std::memcpy(out, base + fused.offset * width, static_cast<size_t>(width));
    return;
  }
  int outer_rank = static_cast<int>(fused.dims.size()) - 1;
  int64_t run = fused.dims.back();
  int64_t run_stride = fused.strides.back();
  std::vector<int64_t> index(static_cast<size_t>(outer_rank), 0);
  int64_t offset = fused.offset;
  for (int64_t done = 0; done < total; done += run) {
    copy_run_bytes(base + offset * width, run, run_stride, static_cast<size_t>(width), out + done * width);
    for (int axis = outer_rank - 1; axis >= 0; --axis) {  // odometer over the outer dimensions
      auto a = static_cast<size_t>(axis);
      offset += fused.strides[a];
      if (++index[a] < fused.dims[a]) break;
      offset -= fused.strides[a] * fused.dims[a];
      index[a] = 0;
    }
  }
}

}  // namespace pet::ops
