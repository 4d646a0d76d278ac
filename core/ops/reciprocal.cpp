// Reciprocal: 1 / x, elementwise.
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Reciprocal() {
  return unary_op("Reciprocal", [](float x, const Attributes&) { return 1.0f / x; });
}

}  // namespace pet::ops
