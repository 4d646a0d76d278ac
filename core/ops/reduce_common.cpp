// Shape rule, kernel and ONNX mapping (axes as attribute or as input, by opset) of the reductions.
#include "core/ops/reduce_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

// Normalized axes, or a refusal for an axis out of range or listed twice.
static Refusable<std::vector<int>> reduced_axes(const ShapeContext& context, int rank) {
  std::vector<int> axes;
  for (int64_t axis : context.attrs.get_ints("axes")) {
    PET_TRY_ASSIGN(int normalized, axis_or_refuse(context, axis, rank, "axis"));
    axes.push_back(normalized);
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return context.refuse("axes " + ints_to_string(context.attrs.get_ints("axes")) + " repeat an axis");
  return axes;
}

// The output shape with reduced axes kept as 1 (the kernel's view of the output).
static Shape kept_shape(const Shape& input, const std::vector<int>& axes) {
  Shape shape = input;
  for (int axis : axes) shape[axis] = 1;
  return shape;
}

// Reductions whose result can leave the integers (and so take float types only).
static bool needs_float(Reduction reduction) {
  return reduction == Reduction::Mean || reduction == Reduction::L2 || reduction == Reduction::LogSum ||
         reduction == Reduction::LogSumExp;
}

static bool is_extreme(Reduction reduction) { return reduction == Reduction::Max || reduction == Reduction::Min; }

// ONNX's element types of a reduction: floats and 32/64-bit integers; Max and Min also take 8-bit
// integers (opset 18) and bool (any / all, opset 20).
static DTypeSet reduce_dtypes(Reduction reduction) {
  DTypeSet types = kFloatDTypes;
  if (!needs_float(reduction)) types = types | DTypeSet{DType::i32, DType::u32, DType::i64, DType::u64};
  if (is_extreme(reduction)) types = types | DTypeSet{DType::i8, DType::u8, DType::boolean};
  return types;
}

static ShapeResult infer_reduce(const ShapeContext& context, Reduction reduction) {
  const TensorType& input = context.input(0);
  PET_REFUSE_UNLESS(context, reduce_dtypes(reduction).contains(input.dtype),
                    "does not support element type " + std::string(dtype_name(input.dtype)));
  PET_TRY_ASSIGN(std::vector<int> axes, reduced_axes(context, input.shape.rank()));
  if (axes.empty() || context.attrs.get_int("keepdims") != 0) return {{input.dtype, kept_shape(input.shape, axes)}};
  std::vector<int64_t> dims;
  for (int i = 0; i < input.shape.rank(); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), i)) dims.push_back(input.shape[i]);
  return {{input.dtype, Shape(dims)}};
}

// The type a slot's total is kept in: double for floats, 64 bits for integers (sums of narrower
// integers wrap when narrowed back, as ONNX Runtime's do), int64 for bool.
template <DType D>
using accumulator_t = std::conditional_t<is_float_dtype(D), double,
                                         std::conditional_t<D == DType::u32 || D == DType::u64, uint64_t, int64_t>>;

// The value of a slot before any element is folded in (an empty reduction's result); an integer
// Max / Min starts from the limits of the element type itself.
template <DType D>
static accumulator_t<D> initial_total(Reduction reduction) {
  using Limits = std::conditional_t<is_float_dtype(D), std::numeric_limits<accumulator_t<D>>,
                                    std::numeric_limits<compute_t<D>>>;
  if (reduction == Reduction::Max) return static_cast<accumulator_t<D>>(Limits::lowest());
  if (reduction == Reduction::Min) return static_cast<accumulator_t<D>>(Limits::max());
  return reduction == Reduction::Prod ? 1 : 0;
}

// Folds one element into a slot's total (LogSumExp's element arrives already shifted).
template <typename Accumulator>
static Accumulator fold(Reduction reduction, Accumulator total, Accumulator value) {
  switch (reduction) {
    case Reduction::Max: return std::max(total, value);
    case Reduction::Min: return std::min(total, value);
    case Reduction::Prod: return total * value;
    case Reduction::L1:
      if constexpr (std::is_signed_v<Accumulator>) return total + (value < 0 ? -value : value);
      else return total + value;
    case Reduction::L2:
    case Reduction::SumSquare: return total + value * value;
    case Reduction::LogSumExp: return total + static_cast<Accumulator>(std::exp(static_cast<double>(value)));
    default: return total + value;
  }
}

// A slot's result from its total, the number of elements folded and LogSumExp's shift.
static double finish(Reduction reduction, double total, double count, double shift) {
  switch (reduction) {
    case Reduction::Mean: return total / count;
    case Reduction::L2: return std::sqrt(total);
    case Reduction::LogSum: return std::log(total);
    case Reduction::LogSumExp: return shift + std::log(total);
    default: return total;
  }
}

// Folds every input element into its output slot (floats in double for accuracy). LogSumExp
// subtracts each slot's maximum (`shifts`) before exp, so large inputs do not overflow.
template <DType D>
static void reduce_into(const Tensor& in, const Shape& kept, Reduction reduction, storage_t<D>* out,
                        const std::vector<double>& shifts = {}) {
  using Accumulator = accumulator_t<D>;
  BroadcastIndex kept_index(kept, in.shape());
  BroadcastIndex::Cursor slots = kept_index.cursor();
  std::vector<Accumulator> totals(static_cast<size_t>(kept.numel()), initial_total<D>(reduction));
  const storage_t<D>* values = in.view<D>().data();
  for (int64_t i = 0, count = in.numel(); i < count; ++i) {
    size_t slot = slots.next();
    auto value = static_cast<Accumulator>(widen<D>(values[i]));
    if (!shifts.empty()) value -= static_cast<Accumulator>(shifts[slot]);
    totals[slot] = fold(reduction, totals[slot], value);
  }
  double count = kept.numel() == 0 ? 1.0 : static_cast<double>(in.numel()) / static_cast<double>(kept.numel());
  for (size_t k = 0; k < totals.size(); ++k) {
    if constexpr (!is_float_dtype(D)) out[k] = narrow<D>(totals[k]);  // integer reductions need no finishing
    else out[k] = narrow<D>(finish(reduction, totals[k], count, shifts.empty() ? 0.0 : shifts[k]));
  }
}

// Each slot's maximum, or 0 where it is not finite (an all -inf slot, or an empty one).
template <DType D>
static std::vector<double> slot_maxima(const Tensor& in, const Shape& kept) {
  std::vector<storage_t<D>> maxima(static_cast<size_t>(kept.numel()));
  reduce_into<D>(in, kept, Reduction::Max, maxima.data());
  std::vector<double> shifts;
  for (storage_t<D> peak : maxima) {
    auto value = static_cast<double>(widen<D>(peak));
    shifts.push_back(std::isfinite(value) ? value : 0.0);
  }
  return shifts;
}

static void compute_reduce(KernelContext& context, Reduction reduction) {
  const Tensor& in = context.input(0);
  Tensor& out = context.outputs[0];
  std::vector<int> axes;
  for (int64_t axis : context.attrs.get_ints("axes")) axes.push_back(normalize_axis(axis, in.shape().rank()));
  Shape kept = kept_shape(in.shape(), axes);
  visit_dtype(in.dtype(), [&]<DType D>() {
    storage_t<D>* to = out.mutable_view<D>().data();
    if constexpr (is_float_dtype(D))
      if (reduction == Reduction::LogSumExp) return reduce_into<D>(in, kept, reduction, to, slot_maxima<D>(in, kept));
    reduce_into<D>(in, kept, reduction, to);
  });
}

// ReduceSum takes axes as an input from opset 13, the other reductions from opset 18.
static bool axes_are_input(const std::string& name, int opset) { return opset >= (name == "ReduceSum" ? 13 : 18); }

static OnnxImported import_reduce(const OpDef& def, const OnnxImportNode& node) {
  bool from_input = axes_are_input(def.name, node.opset());
  reject_unknown_attrs(node, from_input ? std::vector<std::string>{"keepdims", "noop_with_empty_axes"}
                                        : std::vector<std::string>{"keepdims", "axes"});
  std::vector<int64_t> listed = from_input ? optional_constant_ints(node, 1, "axes").value_or(std::vector<int64_t>{})
                                           : node.attr_ints("axes", std::vector<int64_t>{});
  int rank = node.input_type(0).shape.rank();
  std::vector<int64_t> axes;
  if (!listed.empty()) axes = import_axes(node, listed, rank);
  else if (!from_input || node.attr_int("noop_with_empty_axes", 0) == 0)
    for (int i = 0; i < rank; ++i) axes.push_back(i);  // ONNX's default: every axis
  return {def.name, {{"axes", axes}, {"keepdims", node.attr_int("keepdims", 1)}}, {0}};
}

// A reduction over no axis, which opsets before 18 cannot say: what it leaves of each element.
static void export_no_reduction(Reduction reduction, OnnxExportNode& out) {
  std::string x = out.input(0);
  switch (reduction) {
    case Reduction::L1:
    case Reduction::L2: out.add_node("Abs", {x}, {out.output(0)}, {}); return;
    case Reduction::SumSquare: out.add_node("Mul", {x, x}, {out.output(0)}, {}); return;
    case Reduction::LogSum: out.add_node("Log", {x}, {out.output(0)}, {}); return;
    default: out.add_node("Identity", {x}, {out.output(0)}, {});
  }
}

static void export_reduce(const Node& node, Reduction reduction, OnnxExportNode& out) {
  std::optional<TensorType> input = out.input_type(0);
  if (input && input->dtype == DType::boolean && out.opset() < 20)
    throw UserError(fmt::format("node '{}' ({}): a bool input needs opset 20 or later, exporting at opset {}; export "
                                "at a newer opset",
                                node.name, node.op(), out.opset()));
  const std::vector<int64_t>& axes = node.attrs.get_ints("axes");
  int64_t keepdims = node.attrs.get_int("keepdims");
  bool as_input = axes_are_input(node.op(), out.opset());
  if (axes.empty() && !as_input) {
    export_no_reduction(reduction, out);
  } else if (axes.empty()) {
    out.add_node(node.op(), {out.input(0)}, {out.output(0)},
                 {{"keepdims", keepdims}, {"noop_with_empty_axes", int64_t{1}}});
  } else if (as_input) {
    std::string axes_name = out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(axes.size())}, axes));
    out.add_node(node.op(), {out.input(0), axes_name}, {out.output(0)}, {{"keepdims", keepdims}});
  } else {
    out.add_node(node.op(), {out.input(0)}, {out.output(0)}, {{"axes", axes}, {"keepdims", keepdims}});
  }
}

OpDef reduce_op(const std::string& name, Reduction reduction) {
  OpDef def;
  def.name = name;
  def.extra_types = reduce_dtypes(reduction);
  def.onnx_ops = {name};
  def.attrs = {attr_ints("axes"), attr_int("keepdims", 1)};
  def.infer = [reduction](const ShapeContext& context) { return infer_reduce(context, reduction); };
  def.compute = [reduction](KernelContext& context) { compute_reduce(context, reduction); };
  def.cost = [](const CostContext& context) {
    double elements = static_cast<double>(context.input(0).shape.numel());
    return Cost{elements, context.input_bytes() + context.output_bytes()};
  };
  def.from_onnx = import_reduce;
  def.to_onnx = [reduction](const Node& node, OnnxExportNode& out) { export_reduce(node, reduction, out); };
  return def;
}

}  // namespace pet::ops
