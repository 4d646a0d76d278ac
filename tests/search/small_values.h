// Constant values for the small attention programs the fuse-attention tests write as text.
#pragma once

#include <string>

#include <fmt/format.h>

namespace pet::testing {

// `count` small distinct values in [-0.9, 0.9], different for each `seed`, as the text IR's list.
inline std::string small_values(int count, int seed) {
  std::string text = "[";
  for (int i = 0; i < count; ++i)
    text += fmt::format("{}{:.2f}", i ? ", " : "", static_cast<double>((i * 37 + seed * 11) % 19 - 9) / 10.0);
  return text + "]";
}

}  // namespace pet::testing
