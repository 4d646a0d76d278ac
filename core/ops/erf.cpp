// Erf: the Gauss error function, elementwise (GELU in BERT-style models is built from it).
#include <cmath>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

OpDef make_Erf() {
  return unary_op<kNumericDTypes>("Erf", [](auto x) { return std::erf(x); }, 8.0);
}

}  // namespace pet::ops
