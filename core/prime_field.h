// Arithmetic in Z_p for p = 2^61 - 1, where the verifier evaluates multi-linear programs exactly.
#pragma once

#include <cstdint>

namespace pet::field {

inline constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;

inline uint64_t reduce(unsigned __int128 value) {
  // 2^61 = 1 (mod p): fold the high bits onto the low bits twice.
  uint64_t folded = static_cast<uint64_t>(value & kPrime) + static_cast<uint64_t>(value >> 61);
  folded = (folded & kPrime) + (folded >> 61);
  return folded >= kPrime ? folded - kPrime : folded;
}

inline uint64_t add(uint64_t a, uint64_t b) {
  uint64_t sum = a + b;
  return sum >= kPrime ? sum - kPrime : sum;
}
inline uint64_t sub(uint64_t a, uint64_t b) { return a >= b ? a - b : a + kPrime - b; }
inline uint64_t mul(uint64_t a, uint64_t b) { return reduce(static_cast<unsigned __int128>(a) * b); }
inline uint64_t neg(uint64_t a) { return a == 0 ? 0 : kPrime - a; }
// The sum over i < count of a[i] * b[i].
inline uint64_t dot(const uint64_t* a, const uint64_t* b, int64_t count) {
  uint64_t total = 0;
  for (int64_t i = 0; i < count; ++i) total = add(total, mul(a[i], b[i]));
  return total;
}

uint64_t power(uint64_t base, uint64_t exponent);
// Multiplicative inverse (internal check for zero).
uint64_t inverse(uint64_t a);
uint64_t from_int(int64_t value);
// Every finite float is m * 2^e exactly, so it maps to m * (2^e mod p) with no rounding.
// Internal check for infinities and NaN.
uint64_t from_float(double value);

}  // namespace pet::field
