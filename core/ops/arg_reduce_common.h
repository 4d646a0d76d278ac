// The OpDef shared by ArgMax and ArgMin: the i64 index of the extreme element along one axis.
// Canonical attributes: `axis` (normalized at import), `keepdims` and `select_last_index`.
#pragma once

#include <string>

#include "core/op_def.h"

namespace pet::ops {

OpDef arg_reduce_op(const std::string& name, bool find_max);

}  // namespace pet::ops
