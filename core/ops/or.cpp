// Or: broadcasting elementwise logical or of two bool tensors.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Or() {
  return logical_op("Or", [](bool a, bool b) { return a || b; });
}

}  // namespace pet::ops
