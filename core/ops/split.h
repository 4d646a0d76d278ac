// Split's one fact other code reads: where each piece starts along the split axis.
#pragma once

#include <cstdint>

#include "core/op_def.h"

namespace pet::ops {

// The offset along the split axis of output `output_index` of a Split node with `attrs` (the sum
// of the sizes of the pieces before it).
int64_t split_offset(const Attributes& attrs, int output_index);

}  // namespace pet::ops
