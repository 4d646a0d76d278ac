// Relu: max(x, 0), elementwise.
#include "core/ops/op_util.h"

namespace pet::ops {

OpDef make_Relu() {
  return unary_op("Relu", [](float x, const Attributes&) { return x > 0.0f ? x : 0.0f; });
}

}  // namespace pet::ops
