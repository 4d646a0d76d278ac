// Broadcasting, elementwise loops, costs and attribute helpers shared by op files.
#include "core/ops/op_util.h"

#include <algorithm>

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

namespace {

// The axes [first, last) of `out` (right-aligned with `input`) that the input keeps (its dimension
// equals the output's, which is not 1), when no broadcast axis lies between two of them; then the
// input's offset of output element i is (i / elements after `last`) % elements in the block.
std::optional<std::pair<int, int>> kept_block(const Shape& input, const Shape& out) {
  int rank = out.rank();
  int first = rank, last = rank;
  bool broadcast_since_first = false;
  for (int axis = 0; axis < rank; ++axis) {
    int own = axis - (rank - input.rank());
    int64_t dim = own < 0 ? 1 : input[own];
    if (out[axis] == 1) continue;  // neither kept nor broadcast
    if (dim != out[axis]) {
      if (first < rank) broadcast_since_first = true;
      continue;
    }
    if (broadcast_since_first) return std::nullopt;
    if (first == rank) first = axis;
    last = axis + 1;
  }
  return std::pair{first, last};
}

int64_t product(const Shape& shape, int first, int last) {
  int64_t count = 1;
  for (int axis = first; axis < last; ++axis) count *= shape[axis];
  return count;
}

std::vector<int64_t> listed_offsets(const Shape& input, const Shape& out) {
  int rank = out.rank();
  std::vector<int64_t> in_strides(static_cast<size_t>(rank), 0);
  std::vector<int64_t> own = input.strides();
  for (int i = 0; i < input.rank(); ++i) {
    int axis = rank - input.rank() + i;
    in_strides[static_cast<size_t>(axis)] = input[i] == 1 ? 0 : own[static_cast<size_t>(i)];
  }
  int64_t count = out.numel();
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t offset = 0;
  for (int64_t flat = 0; flat < count; ++flat) {
    offsets[static_cast<size_t>(flat)] = offset;
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
  return offsets;
}

bool any_bfloat16(std::span<const TensorType* const> types) {
  return std::any_of(types.begin(), types.end(), [](const TensorType* t) { return t && t->dtype == DType::bf16; });
}

// The shape rule on the inputs' f32 twins; f32 outputs become bf16 when an input was bf16.
ShapeResult infer_through_float(const ShapeRule& rule, const ShapeContext& context, bool mixed_float_inputs) {
  if (!any_bfloat16(context.inputs)) return rule(context);
  bool any_f32 = std::any_of(context.inputs.begin(), context.inputs.end(),
                             [](const TensorType* t) { return t && t->dtype == DType::f32; });
  PET_REFUSE_UNLESS(context, mixed_float_inputs || !any_f32,
                    "mixes bf16 and f32 inputs; ONNX gives them one type: cast one side in the model");
  std::vector<TensorType> widened(context.inputs.size());
  std::vector<const TensorType*> pointers(context.inputs.size(), nullptr);
  for (size_t i = 0; i < context.inputs.size(); ++i) {
    if (!context.inputs[i]) continue;
    widened[i] = *context.inputs[i];
    if (widened[i].dtype == DType::bf16) widened[i].dtype = DType::f32;
    pointers[i] = &widened[i];
  }
  ShapeContext wide{context.attrs, pointers, context.op, context.node_name};
  PET_TRY_ASSIGN(std::vector<TensorType> types, rule(wide));
  for (TensorType& type : types)
    if (type.dtype == DType::f32) type.dtype = DType::bf16;
  return types;
}

// The f32 kernel on widened inputs, its f32 results rounded into the bf16 outputs.
void compute_through_float(const ReferenceKernel& kernel, KernelContext& context) {
  std::vector<Tensor> widened(context.inputs.size());
  std::vector<const Tensor*> pointers(context.inputs.size(), nullptr);
  for (size_t i = 0; i < context.inputs.size(); ++i) {
    if (!context.inputs[i]) continue;
    widened[i] = context.inputs[i]->converted(context.inputs[i]->dtype() == DType::bf16 ? DType::f32
                                                                                       : context.inputs[i]->dtype());
    pointers[i] = &widened[i];
  }
  std::vector<Tensor> results;
  for (const Tensor& out : context.outputs)
    results.emplace_back(out.dtype() == DType::bf16 ? DType::f32 : out.dtype(), out.shape());
  KernelContext wide{context.attrs, pointers, results};
  kernel(wide);
  for (size_t i = 0; i < results.size(); ++i) context.outputs[i] = results[i].converted(context.outputs[i].dtype());
}

Shape without_last_axis(const Shape& shape) {
  const std::vector<int64_t>& dims = shape.dims();
  return dims.empty() ? Shape{} : Shape(std::vector<int64_t>(dims.begin(), dims.end() - 1));
}

}  // namespace

BroadcastIndex::BroadcastIndex(const Shape& input, const Shape& out) {
  identity_ = input == out;
  if (out.numel() == 0) return;
  if (std::optional<std::pair<int, int>> block = kept_block(input, out)) {
    inner_ = product(out, block->second, out.rank());
    span_ = product(out, block->first, block->second);
    return;
  }
  listed_ = listed_offsets(input, out);
}

BroadcastRows::BroadcastRows(const Shape& input, const Shape& out)
    : rows_(without_last_axis(input), without_last_axis(out)) {
  PET_CHECK(out.rank() >= 1, "BroadcastRows: an output of rank 0 has no rows");
  int64_t last = input.rank() == 0 ? 1 : input[input.rank() - 1];
  step_ = last == out[out.rank() - 1] && last != 1 ? 1 : 0;
  row_size_ = last;
}

OpDef with_bfloat16_through_float(OpDef def, bool mixed_float_inputs) {
  def.extra_types = def.extra_types | DTypeSet{DType::f32, DType::bf16};  // f32 named for the gate's message
  ShapeRule rule = def.infer;
  ReferenceKernel kernel = def.compute;
  def.infer = [rule, mixed_float_inputs](const ShapeContext& context) {
    return infer_through_float(rule, context, mixed_float_inputs);
  };
  def.compute = [kernel](KernelContext& context) {
    bool bfloat16 = std::any_of(context.inputs.begin(), context.inputs.end(),
                                [](const Tensor* t) { return t && t->dtype() == DType::bf16; });
    if (bfloat16) compute_through_float(kernel, context);
    else kernel(context);
  };
  return def;
}

void broadcast_elements(const Tensor& src, Tensor& dst) {
  PET_CHECK(src.dtype() == dst.dtype(), "broadcast_elements dtype mismatch");
  size_t width = dtype_size(src.dtype());
  const std::byte* from = src.raw();
  std::byte* to = dst.mutable_raw();
  BroadcastIndex index(src.shape(), dst.shape());
  BroadcastIndex::Cursor offsets = index.cursor();
  for (int64_t i = 0, count = dst.numel(); i < count; ++i)
    std::memcpy(to + static_cast<size_t>(i) * width, from + offsets.next() * width, width);
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
