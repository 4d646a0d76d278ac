// Exponentiation, inverses and exact float embedding in Z_p.
#include "core/prime_field.h"

#include <cmath>

#include "core/error.h"

namespace pet::field {

uint64_t power(uint64_t base, uint64_t exponent) {
  uint64_t result = 1;
  base %= kPrime;
  while (exponent) {
    if (exponent & 1) result = mul(result, base);
    base = mul(base, base);
    exponent >>= 1;
  }
  return result;
}

uint64_t inverse(uint64_t a) {
  PET_CHECK(a % kPrime != 0, "zero has no inverse in Z_p");
  return power(a, kPrime - 2);
}

uint64_t from_int(int64_t value) {
  int64_t remainder = value % static_cast<int64_t>(kPrime);
  return static_cast<uint64_t>(remainder < 0 ? remainder + static_cast<int64_t>(kPrime) : remainder);
}

uint64_t from_float(double value) {
  PET_CHECK(std::isfinite(value), "cannot embed a non-finite float in Z_p");
  if (value == 0) return 0;
  int exponent = 0;
  double mantissa = std::frexp(value, &exponent);  // value = mantissa * 2^exponent, 0.5 <= |mantissa| < 1
  auto integer = static_cast<int64_t>(std::ldexp(mantissa, 53));
  exponent -= 53;  // value = integer * 2^exponent exactly
  uint64_t scale = exponent >= 0 ? power(2, static_cast<uint64_t>(exponent))
                                 : power(inverse(2), static_cast<uint64_t>(-exponent));
  return mul(from_int(integer), scale);
}

}  // namespace pet::field
