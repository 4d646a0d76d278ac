// Mod: broadcasting remainder; fmod = 1 takes the dividend's sign (C fmod, required for floats),
// fmod = 0 the divisor's (Python's %, integers only). An integer remainder by 0 is 0, never a trap.
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

// The remainder with the dividend's sign (x % -1 is 0, so INT_MIN % -1 never traps).
template <typename T>
static T truncated_remainder(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return 0;
    return static_cast<T>(a % b);
  }
}

// The remainder with the divisor's sign (integers only; unsigned ones have no sign to differ).
template <typename T>
static T floored_remainder(T a, T b) {
  T r = truncated_remainder(a, b);
  if constexpr (std::is_signed_v<T>)
    if (r != 0 && ((r < 0) != (b < 0))) return wrapping_add(r, b);
  return r;
}

OpDef make_Mod() {
  OpDef def = binary_op<kNumericDTypes>("Mod", [](auto a, auto b) { return truncated_remainder(a, b); }, {});
  ReferenceKernel truncated = def.compute;
  ReferenceKernel floored =
      binary_op<kIntegerDTypes>("Mod", [](auto a, auto b) { return floored_remainder(a, b); }, {}).compute;
  ShapeRule broadcast_rule = def.infer;
  def.attrs = {attr_int("fmod", 0)};
  def.infer = [broadcast_rule](const ShapeContext& context) -> ShapeResult {
    DType type = context.input(0).dtype;
    PET_REFUSE_UNLESS(context, !is_float_dtype(type) || context.attrs.get_int("fmod") != 0,
                      fmt::format("{} inputs need fmod = 1 (ONNX defines fmod = 0 for integers only)",
                                  dtype_name(type)));
    return broadcast_rule(context);
  };
  def.compute = [truncated, floored](KernelContext& context) {
    if (context.attrs.get_int("fmod") != 0) truncated(context);
    else floored(context);
  };
  return def;
}

}  // namespace pet::ops
