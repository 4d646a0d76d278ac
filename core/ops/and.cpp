// And: broadcasting elementwise logical and of two bool tensors.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_And() {
  return logical_op("And", [](bool a, bool b) { return a && b; });
}

}  // namespace pet::ops
