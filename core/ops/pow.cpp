// Pow: broadcasting elementwise power; the result has the base's type (f32 or i64), the
// exponent may be f32 or i64.
#include <cmath>

#include <fmt/format.h>

#include "core/ops/op_util.h"

namespace pet::ops {

static int64_t integer_power(int64_t base, int64_t exponent) {
  if (exponent < 0) return static_cast<int64_t>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  uint64_t result = 1, factor = static_cast<uint64_t>(base);  // unsigned: overflow wraps, as in C
  for (auto e = static_cast<uint64_t>(exponent); e != 0; e >>= 1, factor *= factor)
    if (e & 1) result *= factor;
  return static_cast<int64_t>(result);
}

static float float_power(float base, double exponent) {
  if (exponent == 2.0) return base * base;  // the common case in decomposed normalizations
  return static_cast<float>(std::pow(static_cast<double>(base), exponent));
}

static ShapeResult infer_pow(const ShapeContext& context) {
  for (int i = 0; i < 2; ++i) {
    DType type = context.input(i).dtype;
    PET_REFUSE_UNLESS(context, type == DType::f32 || type == DType::i64,
                      fmt::format("does not support element type {} (input {})", dtype_name(type), i));
  }
  PET_TRY_ASSIGN(Shape shape, broadcast_inputs(context));
  return {{context.input(0).dtype, shape}};
}

// Element i of `tensor` broadcast through `index`, as a double or int64.
template <typename T>
static T element(const Tensor& tensor, const BroadcastIndex& index, int64_t i) {
  int64_t at = index.identity() ? i : index.offsets()[static_cast<size_t>(i)];
  return tensor.dtype() == DType::f32 ? static_cast<T>(tensor.f32()[static_cast<size_t>(at)])
                                      : static_cast<T>(tensor.i64()[static_cast<size_t>(at)]);
}

static void compute_pow(KernelContext& context) {
  const Tensor& base = context.input(0);
  const Tensor& exponent = context.input(1);
  Tensor& out = context.outputs[0];
  BroadcastIndex base_index(base.shape(), out.shape());
  BroadcastIndex exponent_index(exponent.shape(), out.shape());
  if (out.dtype() == DType::f32) {
    auto result = out.mutable_f32();
    for (int64_t i = 0; i < out.numel(); ++i)
      result[static_cast<size_t>(i)] =
          float_power(element<float>(base, base_index, i), element<double>(exponent, exponent_index, i));
    return;
  }
  auto result = out.mutable_i64();
  bool integer_exponent = exponent.dtype() == DType::i64;
  for (int64_t i = 0; i < out.numel(); ++i)
    result[static_cast<size_t>(i)] =
        integer_exponent
            ? integer_power(element<int64_t>(base, base_index, i), element<int64_t>(exponent, exponent_index, i))
            : static_cast<int64_t>(
                  std::pow(element<double>(base, base_index, i), element<double>(exponent, exponent_index, i)));
}

OpDef make_Pow() {
  OpDef def;
  def.name = "Pow";
  def.onnx_ops = {"Pow"};
  def.min_inputs = def.max_inputs = 2;
  def.traits.elementwise = true;
  def.infer = infer_pow;
  def.compute = compute_pow;
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 4.0); };
  def.from_onnx = import_broadcasting_binary;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
