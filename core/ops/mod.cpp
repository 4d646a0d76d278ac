// Mod: broadcasting remainder; fmod = 1 takes the dividend's sign (C fmod, required for f32),
// fmod = 0 the divisor's (Python's %, i64 only). An integer remainder by 0 is 0, never a trap.
#include <cmath>

#include "core/ops/op_util.h"

namespace pet::ops {

static int64_t truncated_remainder(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }

static int64_t floored_remainder(int64_t a, int64_t b) {
  int64_t r = truncated_remainder(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

OpDef make_Mod() {
  OpDef def = binary_op("Mod", [](float a, float b) { return std::fmod(a, b); }, truncated_remainder, {});
  ReferenceKernel truncated = def.compute;
  ReferenceKernel floored = binary_op("Mod", nullptr, floored_remainder, {}).compute;
  ShapeRule broadcast_rule = def.infer;
  def.attrs = {attr_int("fmod", 0)};
  def.infer = [broadcast_rule](const ShapeContext& context) -> ShapeResult {
    bool floating = context.input(0).dtype == DType::f32;
    PET_REFUSE_UNLESS(context, !floating || context.attrs.get_int("fmod") != 0, "float32 inputs need fmod = 1");
    return broadcast_rule(context);
  };
  def.compute = [truncated, floored](KernelContext& context) {
    if (context.attrs.get_int("fmod") != 0) truncated(context);
    else floored(context);
  };
  return def;
}

}  // namespace pet::ops
