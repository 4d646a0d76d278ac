// The one default seed of pet's random draws (inputs, examinations, checks); --seed overrides it and
// every result prints the seed it used.
#pragma once

#include <cstdint>

namespace pet {

inline constexpr uint64_t kDefaultSeed = 2026;

}  // namespace pet
