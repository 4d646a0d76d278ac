// One spelling table per enum, read by printing, parsing and listing alike, so a value is spelled
// in exactly one place (search/vocabulary.cpp, the GPU plan's vocabulary).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace pet {

template <typename Enum>
struct Spelling {
  Enum value;
  const char* text;
};

// The value's spelling; an internal check when the table lacks it.
template <typename Enum, size_t N>
std::string spell(const Spelling<Enum> (&table)[N], Enum value) {
  for (const Spelling<Enum>& entry : table)
    if (entry.value == value) return entry.text;
  PET_CHECK(false, fmt::format("enum value {} has no spelling", static_cast<int>(value)));
  return "";
}

// The value spelled `text`; UserError "<what> '<text>' is not one of <the spellings>" otherwise.
template <typename Enum, size_t N>
Enum parse_spelling(const Spelling<Enum> (&table)[N], const std::string& text, const std::string& what) {
  std::vector<std::string> texts;
  for (const Spelling<Enum>& entry : table) {
    if (entry.text == text) return entry.value;
    texts.push_back(entry.text);
  }
  throw UserError(fmt::format("{} '{}' is not one of {}", what, text, fmt::join(texts, ", ")));
}

// The table's values in its order.
template <typename Enum, size_t N>
std::vector<Enum> spelled_values(const Spelling<Enum> (&table)[N]) {
  std::vector<Enum> result;
  for (const Spelling<Enum>& entry : table) result.push_back(entry.value);
  return result;
}

}  // namespace pet
