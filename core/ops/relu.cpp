// Relu: max(x, 0), elementwise, on floats and signed integers.
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

static constexpr DTypeSet kReluTypes = kFloatDTypes | DTypeSet{DType::i8, DType::i16, DType::i32, DType::i64};

OpDef make_Relu() {
  return unary_op<kReluTypes>("Relu", [](auto x) { return x > 0 ? x : decltype(x){0}; });
}

}  // namespace pet::ops
