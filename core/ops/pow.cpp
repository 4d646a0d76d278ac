// Pow: broadcasting elementwise power; the result has the base's type (floats, i32 or i64), the
// exponent may have any numeric type.
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "core/ops/elementwise_builders.h"

namespace pet::ops {

static constexpr DTypeSet kBaseTypes = kFloatDTypes | DTypeSet{DType::i32, DType::i64};

// base^exponent for integers, wrapping on overflow as C's unsigned arithmetic does.
template <typename Int>
static Int wrapping_power(Int base, uint64_t exponent) {
  uint64_t result = 1, factor = static_cast<uint64_t>(static_cast<int64_t>(base));
  for (; exponent != 0; exponent >>= 1, factor *= factor)
    if (exponent & 1) result *= factor;
  return static_cast<Int>(result);
}

// base^exponent with base of compute type B and exponent of compute type E. An integer base
// with a negative or float exponent goes through double and truncates toward zero.
template <typename B, typename E>
static B power(B base, E exponent) {
  if constexpr (std::is_floating_point_v<B>) {
    if (exponent == 2) return base * base;  // the common case in decomposed normalizations
    return static_cast<B>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  } else {
    if constexpr (std::is_unsigned_v<E>) return wrapping_power(base, static_cast<uint64_t>(exponent));
    else if constexpr (std::is_integral_v<E>)
      if (exponent >= 0) return wrapping_power(base, static_cast<uint64_t>(exponent));
    return truncate_float<B>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  }
}

static ShapeResult infer_pow(const ShapeContext& context) {
  PET_TRY(check_input_type(context, kBaseTypes, 0));
  PET_TRY(check_input_type(context, kNumericDTypes, 1));
  PET_TRY_ASSIGN(Shape shape, broadcast_inputs(context));
  return {{context.input(0).dtype, shape}};
}

template <DType Base, DType Exponent>
static void compute_typed_pow(const Tensor& base, const Tensor& exponent, Tensor& out) {
  BroadcastIndex base_index(base.shape(), out.shape());
  BroadcastIndex::Cursor base_at = base_index.cursor();
  BroadcastIndex exponent_index(exponent.shape(), out.shape());
  BroadcastIndex::Cursor exponent_at = exponent_index.cursor();
  auto b = base.view<Base>();
  auto e = exponent.view<Exponent>();
  auto result = out.mutable_view<Base>();
  for (size_t i = 0; i < result.size(); ++i)
    result[i] = narrow<Base>(power(widen<Base>(b[base_at.next()]), widen<Exponent>(e[exponent_at.next()])));
}

static void compute_pow(KernelContext& context) {
  visit_allowed<kBaseTypes>(context.input(0).dtype(), [&]<DType Base>() {
    visit_allowed<kNumericDTypes>(context.input(1).dtype(), [&]<DType Exponent>() {
      compute_typed_pow<Base, Exponent>(context.input(0), context.input(1), context.outputs[0]);
    });
  });
}

OpDef make_Pow() {
  OpDef def = elementwise_def("Pow", kNumericDTypes, 2, 4.0);
  def.infer = infer_pow;
  def.compute = compute_pow;
  def.from_onnx = import_broadcasting_binary;
  return def;
}

}  // namespace pet::ops
