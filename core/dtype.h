// Element types pet tensors can hold: float32 activations plus int64 and bool for indices and masks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pet {

enum class DType : uint8_t { f32, i64, boolean };

inline size_t dtype_size(DType type) {
  switch (type) {
    case DType::f32: return 4;
    case DType::i64: return 8;
    case DType::boolean: return 1;
  }
  return 0;
}

inline std::string_view dtype_name(DType type) {
  switch (type) {
    case DType::f32: return "f32";
    case DType::i64: return "i64";
    case DType::boolean: return "bool";
  }
  return "?";
}

inline std::optional<DType> parse_dtype(std::string_view text) {
  if (text == "f32") return DType::f32;
  if (text == "i64") return DType::i64;
  if (text == "bool") return DType::boolean;
  return std::nullopt;
}

}  // namespace pet
