// One element converted between element types as ONNX's Cast does: floats truncate toward zero
// (NaN to 0, out-of-range values saturated, which ONNX leaves undefined), integers wrap, bool is
// 0 or 1 and anything nonzero becomes true, bfloat16 rounds to nearest even.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dtype.h"

namespace pet {

// The integer nearest `value` toward zero, saturated to Int's range; NaN becomes 0.
template <typename Int>
Int truncate_float(double value) {
  if (std::isnan(value)) return 0;
  if (value <= static_cast<double>(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
  // max() of a 64-bit type rounds up to 2^64 or 2^63 as a double, so compare with >=.
  if (value >= static_cast<double>(std::numeric_limits<Int>::max())) return std::numeric_limits<Int>::max();
  return static_cast<Int>(value);
}

// An element of type From as the arithmetic type of From (bf16 as float, bool as bool).
template <DType From>
compute_t<From> widen(storage_t<From> value) {
  if constexpr (From == DType::bf16) return bfloat16_to_float(value);
  else if constexpr (From == DType::boolean) return value != 0;
  else return value;
}

// A value of arithmetic type stored as an element of type To.
template <DType To, typename Value>
storage_t<To> narrow(Value value) {
  if constexpr (To == DType::boolean) {
    return value != Value{0} ? 1 : 0;
  } else if constexpr (To == DType::bf16) {
    return float_to_bfloat16(static_cast<float>(value));
  } else if constexpr (std::is_floating_point_v<storage_t<To>>) {
    return static_cast<storage_t<To>>(value);
  } else if constexpr (std::is_floating_point_v<Value>) {
    return truncate_float<storage_t<To>>(static_cast<double>(value));
  } else {
    return static_cast<storage_t<To>>(value);  // integers wrap modulo 2^bits
  }
}

template <DType From, DType To>
storage_t<To> cast_element(storage_t<From> value) {
  return narrow<To>(widen<From>(value));
}

}  // namespace pet
