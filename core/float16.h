// IEEE binary16 <-> float32 conversion: how pet reads, rounds and writes float16 model data.
#pragma once

#include <bit>
#include <cstdint>

namespace pet {

// The binary16 bit pattern nearest to `value` (ties to even; overflow to infinity; NaN stays NaN).
inline uint16_t float_to_half_bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u)  // infinity or NaN (keeps NaN quiet and non-zero)
    return static_cast<uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u | ((magnitude >> 13) & 0x3ffu) : 0));
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (magnitude < 0x38800000u) {  // a subnormal half (or zero): shift the 24-bit significand into place
    if (magnitude < 0x33000000u) return sign;  // below half the smallest subnormal
    uint32_t exponent = magnitude >> 23;
    uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exponent;  // the half subnormal is significand x 2^(exponent - 126)
    uint32_t half = significand >> shift;
    uint32_t rest = significand & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t rebased = magnitude - 0x38000000u;  // exponent bias 127 -> 15
  uint32_t half = rebased >> 13;
  uint32_t rest = rebased & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // a carry into the exponent is correct
  return static_cast<uint16_t>(sign | half);
}

// The float32 value of a binary16 bit pattern (exact).
inline float half_bits_to_float(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t significand = half & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (significand << 13));
  if (exponent == 0) {  // zero or subnormal: significand x 2^-24
    float magnitude = static_cast<float>(significand) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (significand << 13));
}

// `value` rounded to the nearest float16, as a float32 (what a float16 tensor would hold).
inline float round_to_half(float value) { return half_bits_to_float(float_to_half_bits(value)); }

}  // namespace pet
