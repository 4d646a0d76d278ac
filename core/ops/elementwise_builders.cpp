// Builders for integer-capable unary ops and bool-valued comparisons.
#include "core/ops/elementwise_builders.h"

#include <fmt/format.h>

namespace pet::ops {

OpDef numeric_unary_op(const std::string& name, std::function<float(float)> float_fn,
                       std::function<int64_t(int64_t)> int_fn) {
  OpDef def;
  def.name = name;
  def.onnx_ops = {name};
  def.traits.elementwise = true;
  def.infer = [](const ShapeContext& context) -> ShapeResult {
    DType type = context.input(0).dtype;
    PET_REFUSE_UNLESS(context, type == DType::f32 || type == DType::i64,
                      "does not support element type " + std::string(dtype_name(type)));
    return std::vector<TensorType>{context.input(0)};
  };
  def.compute = [float_fn, int_fn](KernelContext& context) {
    const Tensor& in = context.input(0);
    Tensor& out = context.outputs[0];
    if (in.dtype() == DType::f32) {
      map_unary_f32(in, out, float_fn);
      return;
    }
    auto src = in.i64();
    auto dst = out.mutable_i64();
    for (size_t i = 0; i < src.size(); ++i) dst[i] = int_fn(src[i]);
  };
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

// Element i of a broadcast input as a double.
static double element_as_double(const Tensor& tensor, const BroadcastIndex& index, int64_t i) {
  return tensor.as_double(index.identity() ? i : index.offsets()[static_cast<size_t>(i)]);
}

OpDef comparison_op(const std::string& name, std::function<bool(double, double)> compare,
                    std::function<bool(int64_t, int64_t)> compare_int, bool allows_bool) {
  OpDef def;
  def.name = name;
  def.onnx_ops = {name};
  def.min_inputs = def.max_inputs = 2;
  def.traits.elementwise = true;
  def.infer = [allows_bool](const ShapeContext& context) -> ShapeResult {
    DType type = context.input(0).dtype;
    PET_REFUSE_UNLESS(
        context, type == context.input(1).dtype,
        fmt::format("input types differ: {} and {}", context.input(0).to_string(), context.input(1).to_string()));
    PET_REFUSE_UNLESS(context, type == DType::f32 || type == DType::i64 || (allows_bool && type == DType::boolean),
                      "does not support element type " + std::string(dtype_name(type)));
    PET_TRY_ASSIGN(Shape shape, broadcast_inputs(context));
    return {{DType::boolean, shape}};
  };
  def.compute = [compare, compare_int](KernelContext& context) {
    const Tensor& a = context.input(0);
    const Tensor& b = context.input(1);
    Tensor& out = context.outputs[0];
    BroadcastIndex index_a(a.shape(), out.shape());
    BroadcastIndex index_b(b.shape(), out.shape());
    auto result = out.mutable_b8();
    bool integers = a.dtype() == DType::i64;
    for (int64_t i = 0; i < out.numel(); ++i) {
      if (integers) {
        int64_t x = a.i64()[static_cast<size_t>(index_a.identity() ? i : index_a.offsets()[static_cast<size_t>(i)])];
        int64_t y = b.i64()[static_cast<size_t>(index_b.identity() ? i : index_b.offsets()[static_cast<size_t>(i)])];
        result[static_cast<size_t>(i)] = compare_int(x, y);
      } else {
        result[static_cast<size_t>(i)] = compare(element_as_double(a, index_a, i), element_as_double(b, index_b, i));
      }
    }
  };
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_broadcasting_binary;
  def.to_onnx = export_same_name;
  return def;
}

OpDef logical_op(const std::string& name, std::function<bool(bool, bool)> combine) {
  OpDef def = comparison_op(
      name, [combine](double a, double b) { return combine(a != 0.0, b != 0.0); },
      [combine](int64_t a, int64_t b) { return combine(a != 0, b != 0); }, true);
  ShapeRule comparison_rule = def.infer;
  def.infer = [comparison_rule](const ShapeContext& context) -> ShapeResult {
    for (int i = 0; i < 2; ++i)
      PET_REFUSE_UNLESS(context, context.input(i).dtype == DType::boolean,
                        fmt::format("expects bool inputs, got {}", context.input(i).to_string()));
    return comparison_rule(context);
  };
  def.traits.commutative = true;
  return def;
}

OpDef float_predicate_op(const std::string& name, std::function<bool(float)> test) {
  OpDef def;
  def.name = name;
  def.onnx_ops = {name};
  def.traits.elementwise = true;
  def.infer = [](const ShapeContext& context) -> ShapeResult {
    PET_REFUSE_UNLESS(context, context.input(0).dtype == DType::f32,
                      "expects a float32 input, got " + context.input(0).to_string());
    return std::vector<TensorType>{{DType::boolean, context.input(0).shape}};
  };
  def.compute = [test](KernelContext& context) {
    auto in = context.input(0).f32();
    auto out = context.outputs[0].mutable_b8();
    for (size_t i = 0; i < in.size(); ++i) out[i] = test(in[i]) ? 1 : 0;
  };
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
