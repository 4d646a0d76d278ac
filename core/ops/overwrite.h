// The copy step of Overwrite, shared with the fused LayoutOverwrite.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace pet::ops {

// Writes `patch` into `out` over the box that starts at `offsets` (the patch must fit).
void write_patch(const Tensor& patch, const std::vector<int64_t>& offsets, Tensor& out);

}  // namespace pet::ops
