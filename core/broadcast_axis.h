// Broadcast facts about shapes: whether an operand varies along one axis of a result alone.
#pragma once

#include "core/shape.h"

namespace pet {

// Whether `shape`, broadcast against a value of `rank` dimensions (aligned at the last axis), is 1
// on every axis but `axis`: a per-channel (axis 1) or per-column (the last axis) operand.
inline bool varies_only_along(const Shape& shape, int rank, int axis) {
  int pad = rank - shape.rank();
  if (pad < 0) return false;
  for (int d = 0; d < shape.rank(); ++d)
    if (d + pad != axis && shape[d] != 1) return false;
  return true;
}

}  // namespace pet
