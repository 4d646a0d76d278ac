// Point evaluation over Z_p and box propagation shared by the linear ops' files.
#pragma once

#include <cstdint>
#include <functional>

#include "core/box_grid.h"
#include "core/op_def.h"

namespace pet::ops {

void unravel_index(int64_t flat, const Shape& shape, int64_t* index);
int64_t ravel_index(const int64_t* index, const Shape& shape);

// Broadcasting elementwise ops: every present input is pulled at the broadcast position and
// `combine` gets their values in input order.
PointEval elementwise_point(std::function<uint64_t(const uint64_t* values, int count)> combine);
// Cuts of the broadcast output: the union of the inputs' cuts on the dimensions they span.
BoxRule elementwise_boxes();

// Ops that keep the row-major order of elements and change only the shape (Reshape, Flatten,
// Squeeze, Unsqueeze, Identity).
PointEval row_major_point();
BoxRule row_major_boxes();
// The grid of a row-major reinterpretation of `input` as `output`.
BoxGrid reshape_grid(const BoxGrid& input, const Shape& output);

// Boxes with the same cuts as input `index` (shape-preserving ops).
BoxRule same_boxes_as_input(int index);

}  // namespace pet::ops
