// im2col and col2im over N-D windows: the rearrangements that turn convolutions into GEMMs.
#pragma once

#include <cstdint>

#include "core/ops/window_geometry.h"

namespace pet::ops {

// The column matrix has one row per (channel, kernel tap), channel-major, and one column per
// output position; the functions below handle the output positions [first, first + count),
// which must be whole output lines (multiples of the last output extent).

// columns[row * count + j] = the image element under tap `row` for output position first + j,
// or 0 where the tap falls into the padding. `image` is [channels, geometry.input...].
void im2col(const float* image, int64_t channels, const WindowGeometry& geometry, int64_t first, int64_t count,
            float* columns);

// The adjoint of im2col: adds every column entry into the image element under its tap.
void col2im_add(const float* columns, int64_t channels, const WindowGeometry& geometry, int64_t first, int64_t count,
                float* image);

// Output positions per chunk such that rows x chunk stays within `budget` floats where possible:
// a positive multiple of the last output extent, at most the whole output.
int64_t column_chunk(const WindowGeometry& geometry, int64_t rows, int64_t budget);

// Column buffers stay below this many floats (16 MiB), so 3-D convolutions need no huge buffers.
inline constexpr int64_t kColumnBudget = int64_t{1} << 22;

}  // namespace pet::ops
