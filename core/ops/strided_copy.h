// Byte-level copies through strided views, shared by the data-movement ops (Transpose, Slice,
// Layout, Expand, Tile...): every such op is "read the input through a view, write densely".
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace pet::ops {

// Where each element of a dense row-major output comes from in a source tensor: output element
// with index (i_0, ..., i_k) over `dims` reads source element offset + sum(i_j * strides[j]).
// Strides are in elements and may be zero (broadcast) or negative (reversed slices).
struct StridedView {
  int64_t offset = 0;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
};

// The view reading a whole row-major tensor of this shape in order.
StridedView dense_view(const Shape& shape);

// Copies every element the view selects from `source` into `destination`, densely and in order.
// The destination must hold exactly numel(view.dims) elements of the source's dtype.
void copy_strided(const Tensor& source, const StridedView& view, Tensor& destination);

}  // namespace pet::ops
