// Element types pet tensors hold: float32 activations, int64 and bool for indices and masks, and
// the other ONNX numeric types (double, bfloat16, 8- to 64-bit integers) models carry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "core/bfloat16.h"

namespace pet {

// The first three keep their numbers: structural hashes and profile keys include them.
enum class DType : uint8_t { f32, i64, boolean, f64, bf16, i8, u8, i16, u16, i32, u32, u64 };

inline constexpr DType kAllDTypes[] = {DType::f32, DType::i64, DType::boolean, DType::f64, DType::bf16, DType::i8,
                                       DType::u8,  DType::i16, DType::u16,     DType::i32, DType::u32,  DType::u64};

// The C++ type of one stored element, and the type arithmetic on it is done in.
template <DType D>
struct DTypeInfo;
#define PET_DTYPE_INFO(D, STORAGE, COMPUTE, NAME) \
  template <>                                     \
  struct DTypeInfo<DType::D> {                    \
    using Storage = STORAGE;                      \
    using Compute = COMPUTE;                      \
    static constexpr std::string_view name = NAME; \
  };
PET_DTYPE_INFO(f32, float, float, "f32")
PET_DTYPE_INFO(i64, int64_t, int64_t, "i64")
PET_DTYPE_INFO(boolean, uint8_t, bool, "bool")
PET_DTYPE_INFO(f64, double, double, "f64")
PET_DTYPE_INFO(bf16, BFloat16, float, "bf16")
PET_DTYPE_INFO(i8, int8_t, int8_t, "i8")
PET_DTYPE_INFO(u8, uint8_t, uint8_t, "u8")
PET_DTYPE_INFO(i16, int16_t, int16_t, "i16")
PET_DTYPE_INFO(u16, uint16_t, uint16_t, "u16")
PET_DTYPE_INFO(i32, int32_t, int32_t, "i32")
PET_DTYPE_INFO(u32, uint32_t, uint32_t, "u32")
PET_DTYPE_INFO(u64, uint64_t, uint64_t, "u64")
#undef PET_DTYPE_INFO

template <DType D>
using storage_t = typename DTypeInfo<D>::Storage;
template <DType D>
using compute_t = typename DTypeInfo<D>::Compute;

// Calls `fn.template operator()<D>()` with the DType `type` as a template argument, so one
// generic lambda (`[&]<DType D>() {...}`) is instantiated for every element type.
template <typename Fn>
decltype(auto) visit_dtype(DType type, Fn&& fn) {
  switch (type) {
    case DType::f32: return fn.template operator()<DType::f32>();
    case DType::i64: return fn.template operator()<DType::i64>();
    case DType::boolean: return fn.template operator()<DType::boolean>();
    case DType::f64: return fn.template operator()<DType::f64>();
    case DType::bf16: return fn.template operator()<DType::bf16>();
    case DType::i8: return fn.template operator()<DType::i8>();
    case DType::u8: return fn.template operator()<DType::u8>();
    case DType::i16: return fn.template operator()<DType::i16>();
    case DType::u16: return fn.template operator()<DType::u16>();
    case DType::i32: return fn.template operator()<DType::i32>();
    case DType::u32: return fn.template operator()<DType::u32>();
    case DType::u64: return fn.template operator()<DType::u64>();
  }
  __builtin_unreachable();
}

inline size_t dtype_size(DType type) {
  return visit_dtype(type, []<DType D>() { return sizeof(storage_t<D>); });
}

inline std::string_view dtype_name(DType type) {
  return visit_dtype(type, []<DType D>() { return DTypeInfo<D>::name; });
}

inline std::optional<DType> parse_dtype(std::string_view text) {
  for (DType type : kAllDTypes)
    if (dtype_name(type) == text) return type;
  return std::nullopt;
}

inline constexpr bool is_float_dtype(DType type) {
  return type == DType::f32 || type == DType::f64 || type == DType::bf16;
}
inline constexpr bool is_integer_dtype(DType type) { return !is_float_dtype(type) && type != DType::boolean; }
inline constexpr bool is_signed_integer_dtype(DType type) {
  return type == DType::i8 || type == DType::i16 || type == DType::i32 || type == DType::i64;
}
// The types pet held before the others came: every op's shape rule checks these itself.
inline constexpr bool is_core_dtype(DType type) {
  return type == DType::f32 || type == DType::i64 || type == DType::boolean;
}

// A set of element types (an op's accepted types beyond the core three).
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> types) {
    for (DType type : types) bits_ |= bit(type);
  }
  constexpr bool contains(DType type) const { return (bits_ & bit(type)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DTypeSet operator|(DTypeSet other) const { return DTypeSet(bits_ | other.bits_); }

 private:
  constexpr explicit DTypeSet(uint32_t bits) : bits_(bits) {}
  static constexpr uint32_t bit(DType type) { return 1u << static_cast<unsigned>(type); }
  uint32_t bits_ = 0;
};

inline constexpr DTypeSet kIntegerDTypes = {DType::i8,  DType::u8,  DType::i16, DType::u16,
                                            DType::i32, DType::u32, DType::i64, DType::u64};
inline constexpr DTypeSet kFloatDTypes = {DType::f32, DType::f64, DType::bf16};
inline constexpr DTypeSet kNumericDTypes = kIntegerDTypes | kFloatDTypes;
inline constexpr DTypeSet kAllDTypeSet = kNumericDTypes | DTypeSet{DType::boolean};

}  // namespace pet
