// im2col/col2im for N-D windows, walking whole output lines so the inner loops are contiguous.
#include "core/ops/im2col.h"

#include <algorithm>
#include <vector>

#include "core/error.h"

namespace pet::ops {
namespace {

// Where one kernel tap reads the image: per spatial dim, the input coordinate of output 0.
struct Tap {
  std::vector<int64_t> origin;         // kernel_index * dilation - pad_begin
  std::vector<int64_t> image_strides;  // row-major strides of the spatial image
  int64_t line_begin = 0;              // valid output range along the last dim
  int64_t line_end = 0;
};

Tap make_tap(const WindowGeometry& g, int64_t tap_index) {
  int rank = g.rank();
  Tap tap;
  tap.origin.resize(static_cast<size_t>(rank));
  for (int d = rank - 1; d >= 0; --d) {
    auto i = static_cast<size_t>(d);
    tap.origin[i] = (tap_index % g.kernel[i]) * g.dilations[i] - g.pads_begin[i];
    tap_index /= g.kernel[i];
  }
  tap.image_strides.assign(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d)
    tap.image_strides[static_cast<size_t>(d)] =
        tap.image_strides[static_cast<size_t>(d + 1)] * g.input[static_cast<size_t>(d + 1)];
  auto last = static_cast<size_t>(rank - 1);
  int64_t origin = tap.origin[last], stride = g.strides[last], input = g.input[last], output = g.output[last];
  // Valid outputs o satisfy 0 <= o * stride + origin < input.
  int64_t begin = origin >= 0 ? 0 : (-origin + stride - 1) / stride;
  int64_t end = input - origin <= 0 ? 0 : (input - origin + stride - 1) / stride;
  tap.line_begin = std::min(begin, output);
  tap.line_end = std::clamp(end, tap.line_begin, output);
  return tap;
}

// Calls visit(column_offset, image_offset, valid) for each output line in the range, where
// image_offset is the image index of output 0 of the line (last-dim origin included) and valid
// says whether the line's outer coordinates fall inside the image.
template <typename Visit>
void for_each_line(const WindowGeometry& g, const Tap& tap, int64_t first, int64_t count, Visit visit) {
  int rank = g.rank();
  int64_t line_length = g.output.back();
  for (int64_t line = first / line_length; line < (first + count) / line_length; ++line) {
    int64_t rest = line;
    int64_t offset = tap.origin.back();
    bool valid = true;
    for (int d = rank - 2; d >= 0; --d) {
      auto i = static_cast<size_t>(d);
      int64_t coordinate = (rest % g.output[i]) * g.strides[i] + tap.origin[i];
      rest /= g.output[i];
      valid = valid && coordinate >= 0 && coordinate < g.input[i];
      offset += coordinate * tap.image_strides[i];
    }
    visit(line * line_length - first, offset, valid);
  }
}

}  // namespace

void im2col(const float* image, int64_t channels, const WindowGeometry& g, int64_t first, int64_t count,
            float* columns) {
  int64_t taps = g.kernel_size(), image_size = g.input_size(), line_length = g.output.back();
  int64_t stride = g.strides.back();
  for (int64_t t = 0; t < taps; ++t) {
    Tap tap = make_tap(g, t);
    for (int64_t c = 0; c < channels; ++c) {
      float* row = columns + (c * taps + t) * count;
      const float* plane = image + c * image_size;
      for_each_line(g, tap, first, count, [&](int64_t column, int64_t offset, bool valid) {
        float* out = row + column;
        if (!valid) {
          std::fill(out, out + line_length, 0.0f);
          return;
        }
        std::fill(out, out + tap.line_begin, 0.0f);
        const float* in = plane + offset;
        if (stride == 1) {
          std::copy(in + tap.line_begin, in + tap.line_end, out + tap.line_begin);
        } else {
          for (int64_t o = tap.line_begin; o < tap.line_end; ++o) out[o] = in[o * stride];
        }
        std::fill(out + tap.line_end, out + line_length, 0.0f);
      });
    }
  }
}

void col2im_add(const float* columns, int64_t channels, const WindowGeometry& g, int64_t first, int64_t count,
                float* image) {
  int64_t taps = g.kernel_size(), image_size = g.input_size();
  int64_t stride = g.strides.back();
  for (int64_t t = 0; t < taps; ++t) {
    Tap tap = make_tap(g, t);
    for (int64_t c = 0; c < channels; ++c) {
      const float* row = columns + (c * taps + t) * count;
      float* plane = image + c * image_size;
      for_each_line(g, tap, first, count, [&](int64_t column, int64_t offset, bool valid) {
        if (!valid) return;
        const float* in = row + column;
        float* out = plane + offset;
        for (int64_t o = tap.line_begin; o < tap.line_end; ++o) out[o * stride] += in[o];
      });
    }
  }
}

int64_t column_chunk(const WindowGeometry& g, int64_t rows, int64_t budget) {
  int64_t line_length = std::max<int64_t>(1, g.output.back());
  int64_t total = g.output_size();
  int64_t lines = std::max<int64_t>(1, budget / std::max<int64_t>(1, rows * line_length));
  return std::min(total, lines * line_length);
}

}  // namespace pet::ops
