// Xor: broadcasting elementwise logical exclusive or of two bool tensors.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Xor() {
  return logical_op("Xor", [](bool a, bool b) { return a != b; });
}

}  // namespace pet::ops
