// bfloat16 <-> float32 conversion: the upper half of a float32, rounded to nearest even.
#pragma once

#include <bit>
#include <cstdint>

namespace pet {

// A bfloat16 element as stored: the upper 16 bits of the float32 it stands for.
struct BFloat16 {
  uint16_t bits = 0;
};

// The bfloat16 nearest to `value` (ties to even; NaN stays a quiet NaN of the same sign).
inline BFloat16 float_to_bfloat16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return {static_cast<uint16_t>((bits >> 16) | 0x40u)};
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return {static_cast<uint16_t>((bits + rounding) >> 16)};
}

// The float32 value of a bfloat16 (exact).
inline float bfloat16_to_float(BFloat16 value) { return std::bit_cast<float>(static_cast<uint32_t>(value.bits) << 16); }

// `value` rounded to the nearest bfloat16, as a float32.
inline float round_to_bfloat16(float value) { return bfloat16_to_float(float_to_bfloat16(value)); }

}  // namespace pet
