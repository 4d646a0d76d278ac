// Broadcasting, elementwise loops, costs and attribute helpers shared by op files.
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
