// Broadcasting, elementwise loops and OpDef builders shared by op files.
#include "core/ops/op_util.h"

#include <fmt/format.h>

namespace pet::ops {

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.rank() ? 1 : a[i - (rank - a.rank())];
    int64_t db = i < rank - b.rank() ? 1 : b[i - (rank - b.rank())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    dims[static_cast<size_t>(i)] = da == 1 ? db : da;
  }
  return Shape(dims);
}

Refusable<Shape> broadcast_inputs(const ShapeContext& context, int first, int count) {
  int last = count < 0 ? context.num_inputs() : first + count;
  Shape result;
  bool started = false;
  for (int i = first; i < last; ++i) {
    if (!context.has_input(i)) continue;
    const Shape& shape = context.input(i).shape;
    if (!started) {
      result = shape;
      started = true;
      continue;
    }
    auto merged = broadcast_shapes(result, shape);
    if (!merged)
      return context.refuse(fmt::format("cannot broadcast shapes {} and {}", result.to_string(), shape.to_string()));
    result = *merged;
  }
  return result;
}

BroadcastIndex::BroadcastIndex(const Shape& input, const Shape& out) {
  identity_ = input == out;
  if (identity_) return;
  int rank = out.rank();
  std::vector<int64_t> in_strides(static_cast<size_t>(rank), 0);
  std::vector<int64_t> own = input.strides();
  for (int i = 0; i < input.rank(); ++i) {
    int axis = rank - input.rank() + i;
    in_strides[static_cast<size_t>(axis)] = input[i] == 1 ? 0 : own[static_cast<size_t>(i)];
  }
  offsets_.resize(static_cast<size_t>(out.numel()));
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t offset = 0;
  for (int64_t flat = 0; flat < out.numel(); ++flat) {
    offsets_[static_cast<size_t>(flat)] = offset;
    for (int axis = rank - 1; axis >= 0; --axis) {  // odometer increment
      auto a = static_cast<size_t>(axis);
      if (++index[a] < out[axis]) {
        offset += in_strides[a];
        break;
      }
      offset -= in_strides[a] * (index[a] - 1);
      index[a] = 0;
    }
  }
}

void map_unary_f32(const Tensor& in, Tensor& out, const std::function<float(float)>& fn) {
  auto src = in.f32();
  auto dst = out.mutable_f32();
  for (size_t i = 0; i < src.size(); ++i) dst[i] = fn(src[i]);
}

void gather_elements(const Tensor& src, const std::vector<int64_t>& offsets, Tensor& dst) {
  PET_CHECK(src.dtype() == dst.dtype(), "gather_elements dtype mismatch");
  size_t width = dtype_size(src.dtype());
  const std::byte* from = src.raw();
  std::byte* to = dst.mutable_raw();
  for (size_t i = 0; i < offsets.size(); ++i)
    std::memcpy(to + i * width, from + static_cast<size_t>(offsets[i]) * width, width);
}

Cost elementwise_cost(const CostContext& context, double flops_per_element) {
  double elements = 0;
  for (const TensorType& type : context.outputs) elements += static_cast<double>(type.shape.numel());
  return {elements * flops_per_element, context.input_bytes() + context.output_bytes()};
}

Cost data_movement_cost(const CostContext& context) { return {0.0, context.input_bytes() + context.output_bytes()}; }

OpDef unary_op(const std::string& name, std::function<float(float, const Attributes&)> fn, std::vector<AttrSpec> attrs,
               double flops_per_element) {
  OpDef def;
  def.name = name;
  def.onnx_ops = {name};
  def.attrs = std::move(attrs);
  def.traits.elementwise = true;
  def.infer = [](const ShapeContext& context) -> ShapeResult {
    PET_REFUSE_UNLESS(context, context.input(0).dtype == DType::f32,
                      "expects a float32 input, got " + context.input(0).to_string());
    return std::vector<TensorType>{context.input(0)};
  };
  def.compute = [fn](KernelContext& context) {
    const Attributes& node_attrs = context.attrs;
    map_unary_f32(context.input(0), context.outputs[0], [&](float x) { return fn(x, node_attrs); });
  };
  def.cost = [flops_per_element](const CostContext& context) { return elementwise_cost(context, flops_per_element); };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

OnnxImported import_broadcasting_binary(const OpDef& def, const OnnxImportNode& node) {
  if (node.opset() >= 7) return import_same_name(def, node);
  for (const std::string& name : node.attr_names())
    if (name != "broadcast" && name != "axis") node.unsupported("attribute '" + name + "'");
  if (node.attr_int("broadcast", 0) != 0 && node.has_attr("axis")) {
    int numpy_axis = node.input_type(0).shape.rank() - node.input_type(1).shape.rank();
    int64_t axis = node.attr_int("axis");
    if (axis != numpy_axis)
      node.unsupported(fmt::format("legacy broadcast at axis {} (numpy-style alignment is axis {})", axis, numpy_axis));
  }
  return {def.name, {}, {0, 1}};
}

OpDef binary_op(const std::string& name, std::function<float(float, float)> float_fn,
                std::function<int64_t(int64_t, int64_t)> int_fn, OpTraits traits) {
  OpDef def;
  def.name = name;
  def.onnx_ops = {name};
  def.min_inputs = def.max_inputs = 2;
  traits.elementwise = true;
  def.traits = std::move(traits);
  bool allows_int = static_cast<bool>(int_fn);
  def.infer = [allows_int](const ShapeContext& context) -> ShapeResult {
    DType type = context.input(0).dtype;
    PET_REFUSE_UNLESS(
        context, type == context.input(1).dtype,
        fmt::format("input types differ: {} and {}", context.input(0).to_string(), context.input(1).to_string()));
    PET_REFUSE_UNLESS(context, type == DType::f32 || (allows_int && type == DType::i64),
                      "does not support element type " + std::string(dtype_name(type)));
    PET_TRY_ASSIGN(Shape shape, broadcast_inputs(context));
    return {{type, shape}};
  };
  def.compute = [float_fn, int_fn](KernelContext& context) {
    const Tensor& a = context.input(0);
    const Tensor& b = context.input(1);
    Tensor& out = context.outputs[0];
    BroadcastIndex index_a(a.shape(), out.shape());
    BroadcastIndex index_b(b.shape(), out.shape());
    auto offset = [](const BroadcastIndex& index, int64_t i) {
      return static_cast<size_t>(index.identity() ? i : index.offsets()[static_cast<size_t>(i)]);
    };
    if (out.dtype() == DType::f32) {
      auto x = a.f32(), y = b.f32();
      auto z = out.mutable_f32();
      for (int64_t i = 0; i < out.numel(); ++i) z[static_cast<size_t>(i)] = float_fn(x[offset(index_a, i)], y[offset(index_b, i)]);
    } else {
      auto x = a.i64(), y = b.i64();
      auto z = out.mutable_i64();
      for (int64_t i = 0; i < out.numel(); ++i) z[static_cast<size_t>(i)] = int_fn(x[offset(index_a, i)], y[offset(index_b, i)]);
    }
  };
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_broadcasting_binary;
  def.to_onnx = export_same_name;
  return def;
}

// Folds `in` broadcast to `out`'s shape into `out` with fn (f32 or i64, as T says).
template <typename T, typename Fn>
static void fold_broadcast(const Tensor& in, Tensor& out, const Fn& fn) {
  BroadcastIndex index(in.shape(), out.shape());
  const T* src = reinterpret_cast<const T*>(in.raw());
  T* dst = reinterpret_cast<T*>(out.mutable_raw());
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto at = static_cast<size_t>(i);
    dst[at] = fn(dst[at], src[index.identity() ? at : static_cast<size_t>(index.offsets()[at])]);
  }
}

OpDef variadic_op(const std::string& name, std::function<float(float, float)> float_fn,
                  std::function<int64_t(int64_t, int64_t)> int_fn, OpTraits traits) {
  OpDef def;
  def.name = name;
  def.onnx_ops = {name};
  def.min_inputs = 1;
  def.max_inputs = kMaxVariadicInputs;
  traits.elementwise = true;
  def.traits = std::move(traits);
  bool allows_int = static_cast<bool>(int_fn);
  def.infer = [allows_int](const ShapeContext& context) -> ShapeResult {
    DType type = context.input(0).dtype;
    for (int i = 1; i < context.num_inputs(); ++i)
      PET_REFUSE_UNLESS(
          context, context.input(i).dtype == type,
          fmt::format("input types differ: {} and {}", context.input(0).to_string(), context.input(i).to_string()));
    PET_REFUSE_UNLESS(context, type == DType::f32 || (allows_int && type == DType::i64),
                      "does not support element type " + std::string(dtype_name(type)));
    PET_TRY_ASSIGN(Shape shape, broadcast_inputs(context));
    return {{type, shape}};
  };
  def.compute = [float_fn, int_fn](KernelContext& context) {
    Tensor& out = context.outputs[0];
    BroadcastIndex first(context.input(0).shape(), out.shape());
    if (first.identity()) out = context.input(0);
    else gather_elements(context.input(0), first.offsets(), out);
    for (size_t i = 1; i < context.inputs.size(); ++i) {
      if (out.dtype() == DType::f32) fold_broadcast<float>(*context.inputs[i], out, float_fn);
      else fold_broadcast<int64_t>(*context.inputs[i], out, int_fn);
    }
  };
  def.cost = [](const CostContext& context) {
    return elementwise_cost(context, static_cast<double>(context.inputs.size() - 1));
  };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

AttrSpec attr_int(const std::string& name, std::optional<int64_t> fallback) {
  return {name, AttrKind::Int, fallback ? std::optional<AttrValue>(*fallback) : std::nullopt};
}
AttrSpec attr_float(const std::string& name, std::optional<double> fallback) {
  return {name, AttrKind::Float, fallback ? std::optional<AttrValue>(*fallback) : std::nullopt};
}
AttrSpec attr_string(const std::string& name, std::optional<std::string> fallback) {
  return {name, AttrKind::String, fallback ? std::optional<AttrValue>(*fallback) : std::nullopt};
}
AttrSpec attr_ints(const std::string& name, std::optional<std::vector<int64_t>> fallback) {
  return {name, AttrKind::Ints, fallback ? std::optional<AttrValue>(*fallback) : std::nullopt};
}
AttrSpec attr_floats(const std::string& name, std::optional<std::vector<double>> fallback) {
  return {name, AttrKind::Floats, fallback ? std::optional<AttrValue>(*fallback) : std::nullopt};
}

Refusable<int> axis_or_refuse(const ShapeContext& context, int64_t axis, int rank, const std::string& what) {
  int normalized = normalize_axis(axis, rank);
  if (normalized < 0) return context.refuse(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
  return normalized;
}

std::vector<int64_t> constant_ints(const OnnxImportNode& node, int index, const std::string& what) {
  return node.require_constant_input(index, what).to_int_vector();
}

}  // namespace pet::ops
