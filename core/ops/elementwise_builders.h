// OpDef builders for elementwise ops over every element type an op allows: an op file names its
// ONNX type set (a DTypeSet constant) and one generic functor, which is instantiated per type.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <type_traits>

#include "core/element_cast.h"
#include "core/ops/op_util.h"

namespace pet::ops {

// ---- Integer arithmetic as ONNX defines it: modulo 2^bits, never signed overflow.

// The unsigned type integers of T are computed in: at least `unsigned`, so that the usual
// promotions never turn them back into (overflowing) `int`.
template <typename T>
using wrapping_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<wrapping_t<T>>(a) + static_cast<wrapping_t<T>>(b));
  else return a + b;
}
template <typename T>
T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<wrapping_t<T>>(a) - static_cast<wrapping_t<T>>(b));
  else return a - b;
}
template <typename T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<wrapping_t<T>>(a) * static_cast<wrapping_t<T>>(b));
  else return a * b;
}
template <typename T>
T wrapping_neg(T a) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(wrapping_t<T>{0} - static_cast<wrapping_t<T>>(a));
  else return -a;
}

// The type an integer is computed in where ONNX computes it as a float (e.g. Erf of an int8):
// double; a float type computes as itself.
template <typename T>
using float_compute_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;

// ---- Dispatch on the element type.

// Runs body.template operator()<D>() for `type`, instantiating the body only for the types in
// Types; the shape rule has refused any other type, so meeting one here is an internal error.
template <const DTypeSet& Types, typename Body>
void visit_allowed(DType type, Body&& body) {
  visit_dtype(type, [&]<DType D>() {
    if constexpr (Types.contains(D)) body.template operator()<D>();
    else PET_CHECK(false, "element type " + std::string(dtype_name(D)) + " reached a kernel that refused it");
  });
}

// ---- Kernels: read elements in their compute type (compute_t), write through narrow.

// out[i] = fn(in[i]); Out is the output's element type.
template <DType D, DType Out, typename Fn>
void map_elements(const Tensor& in, Tensor& out, const Fn& fn) {
  auto src = in.view<D>();
  auto dst = out.mutable_view<Out>();
  for (size_t i = 0; i < src.size(); ++i) dst[i] = narrow<Out>(fn(widen<D>(src[i])));
}

// z[i] = fn(x[i * x_step], y[i * y_step]) for i < count, each step 1 or 0: one loop per
// combination, so the compiler sees plain (vectorizable) loops.
template <DType D, DType Out, typename In, typename Result, typename Fn>
void map_pairs_of_row(const In* x, int64_t x_step, const In* y, int64_t y_step, Result* z, int64_t count,
                      const Fn& fn) {
  if (x_step == 1 && y_step == 1) {
    for (int64_t i = 0; i < count; ++i) z[i] = narrow<Out>(fn(widen<D>(x[i]), widen<D>(y[i])));
  } else if (x_step == 1) {
    auto held = widen<D>(y[0]);
    for (int64_t i = 0; i < count; ++i) z[i] = narrow<Out>(fn(widen<D>(x[i]), held));
  } else if (y_step == 1) {
    auto held = widen<D>(x[0]);
    for (int64_t i = 0; i < count; ++i) z[i] = narrow<Out>(fn(held, widen<D>(y[i])));
  } else {
    auto value = narrow<Out>(fn(widen<D>(x[0]), widen<D>(y[0])));
    for (int64_t i = 0; i < count; ++i) z[i] = value;
  }
}

// Rows at least this long are mapped row by row (BroadcastRows); shorter ones element by element.
inline constexpr int64_t kShortestMappedRow = 8;

// out[i] = fn(a[i], b[i]) with a and b broadcast to out's shape; Out is the output's type.
template <DType D, DType Out, typename Fn>
void map_broadcast_pairs(const Tensor& a, const Tensor& b, Tensor& out, const Fn& fn) {
  auto x = a.view<D>();
  auto y = b.view<D>();
  auto z = out.mutable_view<Out>();
  if (a.shape() == out.shape() && b.shape() == out.shape()) {
    map_pairs_of_row<D, Out>(x.data(), 1, y.data(), 1, z.data(), static_cast<int64_t>(z.size()), fn);
    return;
  }
  int64_t row = out.shape().rank() == 0 ? 0 : out.shape()[out.shape().rank() - 1];
  if (row >= kShortestMappedRow) {
    BroadcastRows rows_a(a.shape(), out.shape()), rows_b(b.shape(), out.shape());
    BroadcastRows::Cursor at_a = rows_a.cursor(), at_b = rows_b.cursor();
    for (size_t start = 0; start < z.size(); start += static_cast<size_t>(row))
      map_pairs_of_row<D, Out>(x.data() + at_a.next(), rows_a.step(), y.data() + at_b.next(), rows_b.step(),
                               z.data() + start, row, fn);
    return;
  }
  BroadcastIndex index_a(a.shape(), out.shape());
  BroadcastIndex index_b(b.shape(), out.shape());
  BroadcastIndex::Cursor at_a = index_a.cursor();
  BroadcastIndex::Cursor at_b = index_b.cursor();
  for (size_t i = 0; i < z.size(); ++i) z[i] = narrow<Out>(fn(widen<D>(x[at_a.next()]), widen<D>(y[at_b.next()])));
}

// out[i] = fn(out[i], in[i]) with `in` broadcast to out's shape (one rounding per input).
template <DType D, typename Fn>
void fold_broadcast(const Tensor& in, Tensor& out, const Fn& fn) {
  auto src = in.view<D>();
  auto dst = out.mutable_view<D>();
  BroadcastIndex index(in.shape(), out.shape());
  BroadcastIndex::Cursor at = index.cursor();
  for (size_t i = 0; i < dst.size(); ++i) dst[i] = narrow<D>(fn(widen<D>(dst[i]), widen<D>(src[at.next()])));
}

// ---- Shape rules and the OpDef common to every builder (elementwise_builders.cpp).

// An elementwise OpDef named like its ONNX op: traits.elementwise, elementwise cost, same-name
// ONNX mapping, `types` as its extra types; infer and compute are left to the builder.
OpDef elementwise_def(const std::string& name, DTypeSet types, int inputs, double flops_per_element);
// One input of a type in `types`; the output has the input's type, or `output` when given.
ShapeResult infer_unary(const ShapeContext& context, DTypeSet types, std::optional<DType> output = {});
// Refuses an input type outside `types`, naming the input when the op has several.
ShapeCheck check_input_type(const ShapeContext& context, DTypeSet types, int input);
// Copies input 0 broadcast to the output's shape into the output (a variadic fold's start).
void broadcast_first_input(KernelContext& context);

// ---- Builders.

// A unary op on the types in Types: `make(attrs)` returns the elementwise functor (called with
// each element in its compute type), so attributes are read once per node, not per element.
template <const DTypeSet& Types, typename MakeFn>
OpDef unary_op_with_attrs(const std::string& name, std::vector<AttrSpec> attrs, MakeFn make,
                          double flops_per_element = 1.0) {
  OpDef def = elementwise_def(name, Types, 1, flops_per_element);
  def.attrs = std::move(attrs);
  def.infer = [](const ShapeContext& context) { return infer_unary(context, Types); };
  def.compute = [make](KernelContext& context) {
    auto fn = make(context.attrs);
    visit_allowed<Types>(context.input(0).dtype(),
                         [&]<DType D>() { map_elements<D, D>(context.input(0), context.outputs[0], fn); });
  };
  return def;
}

// A unary op on the types in Types without attributes: out = fn(x).
template <const DTypeSet& Types, typename Fn>
OpDef unary_op(const std::string& name, Fn fn, double flops_per_element = 1.0) {
  return unary_op_with_attrs<Types>(name, {}, [fn](const Attributes&) { return fn; }, flops_per_element);
}

// A unary test on the types in Types producing bool (IsNaN): out = test(x).
template <const DTypeSet& Types, typename Fn>
OpDef predicate_op(const std::string& name, Fn test) {
  OpDef def = elementwise_def(name, Types, 1, 1.0);
  def.infer = [](const ShapeContext& context) { return infer_unary(context, Types, DType::boolean); };
  def.compute = [test](KernelContext& context) {
    visit_allowed<Types>(context.input(0).dtype(), [&]<DType D>() {
      map_elements<D, DType::boolean>(context.input(0), context.outputs[0], test);
    });
  };
  return def;
}

// A broadcasting op of `inputs` inputs of one type in Types, output type `output` (or theirs).
OpDef broadcasting_def(const std::string& name, DTypeSet types, int inputs, OpTraits traits,
                       std::optional<DType> output = {});

// A broadcasting binary op on two inputs of one type in Types: out = fn(a, b), of that type.
template <const DTypeSet& Types, typename Fn>
OpDef binary_op(const std::string& name, Fn fn, OpTraits traits) {
  OpDef def = broadcasting_def(name, Types, 2, std::move(traits));
  def.compute = [fn](KernelContext& context) {
    visit_allowed<Types>(context.input(0).dtype(), [&]<DType D>() {
      map_broadcast_pairs<D, D>(context.input(0), context.input(1), context.outputs[0], fn);
    });
  };
  return def;
}

// A broadcasting comparison of two inputs of one type in Types producing bool: out = compare(a, b),
// compared in the type itself (u64 as unsigned, bf16 as float).
template <const DTypeSet& Types, typename Fn>
OpDef comparison_op(const std::string& name, Fn compare, OpTraits traits = {}) {
  OpDef def = broadcasting_def(name, Types, 2, std::move(traits), DType::boolean);
  def.compute = [compare](KernelContext& context) {
    visit_allowed<Types>(context.input(0).dtype(), [&]<DType D>() {
      map_broadcast_pairs<D, DType::boolean>(context.input(0), context.input(1), context.outputs[0], compare);
    });
  };
  return def;
}

// A broadcasting variadic op (Sum, Min, Max) on inputs of one type in Types that folds them left
// to right, out = fn(fn(in0, in1), in2)..., rounding to the type after each step; one input is
// copied.
template <const DTypeSet& Types, typename Fn>
OpDef variadic_op(const std::string& name, Fn fn, OpTraits traits) {
  OpDef def = broadcasting_def(name, Types, kMaxVariadicInputs, std::move(traits));
  def.min_inputs = 1;
  def.compute = [fn](KernelContext& context) {
    broadcast_first_input(context);
    visit_allowed<Types>(context.outputs[0].dtype(), [&]<DType D>() {
      for (size_t i = 1; i < context.inputs.size(); ++i) fold_broadcast<D>(*context.inputs[i], context.outputs[0], fn);
    });
  };
  def.cost = [](const CostContext& context) {
    return elementwise_cost(context, static_cast<double>(context.inputs.size() - 1));
  };
  def.from_onnx = import_same_name;
  return def;
}

// A broadcasting logical op of two bool inputs (And, Or, Xor) producing bool.
OpDef logical_op(const std::string& name, std::function<bool(bool, bool)> combine);

}  // namespace pet::ops
