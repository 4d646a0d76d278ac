// Split: cuts a tensor along one axis into pieces of explicit sizes; jointly linear.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/split.h"

namespace pet::ops {

static ShapeResult infer_split(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  int rank = input.shape.rank();
  PET_REFUSE_UNLESS(context, rank > 0, "cannot split a scalar");
  PET_TRY_ASSIGN(int axis, axis_or_refuse(context, context.attrs.get_int("axis"), rank, "axis"));
  const auto& sizes = context.attrs.get_ints("split");
  PET_REFUSE_UNLESS(context, !sizes.empty(), "split must list at least one output size");
  int64_t total = 0;
  std::vector<TensorType> outputs;
  for (int64_t size : sizes) {
    PET_REFUSE_UNLESS(context, size >= 0, "split sizes must be non-negative, got " + ints_to_string(sizes));
    total += size;
    TensorType piece = input;
    piece.shape[axis] = size;
    outputs.push_back(piece);
  }
  PET_REFUSE_UNLESS(context, total == input.shape[axis],
                    fmt::format("split sizes {} add up to {}, but axis {} of {} has size {}", ints_to_string(sizes),
                                total, axis, input.shape.to_string(), input.shape[axis]));
  return outputs;
}

// Output k takes one contiguous block of (its size x inner size) from every outer row.
static void split_kernel(KernelContext& context) {
  const Tensor& input = context.input(0);
  int axis = normalize_axis(context.attrs.get_int("axis"), input.shape().rank());
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= input.shape()[d];
  size_t width = dtype_size(input.dtype());
  size_t in_row = outer == 0 ? 0 : static_cast<size_t>(input.numel() / outer) * width;
  size_t column = 0;
  for (Tensor& out : context.outputs) {
    size_t block = outer == 0 ? 0 : static_cast<size_t>(out.numel() / outer) * width;
    std::byte* destination = out.mutable_raw();
    for (int64_t o = 0; o < outer && block > 0; ++o)
      std::memcpy(destination + static_cast<size_t>(o) * block, input.raw() + static_cast<size_t>(o) * in_row + column, block);
    column += block;
  }
}

// Sizes for a split into `parts` outputs: equal, or (opset 18 num_outputs) ceil-sized with a
// smaller last piece.
static std::vector<int64_t> even_split(const OnnxImportNode& node, int64_t length, int64_t parts, bool allow_uneven) {
  if (parts <= 0) node.fail(fmt::format("cannot split into {} outputs", parts), "give at least one output");
  if (length % parts != 0 && !allow_uneven)
    node.fail(fmt::format("axis of size {} does not split into {} equal outputs", length, parts),
              "give the split sizes explicitly");
  int64_t piece = (length + parts - 1) / parts;
  std::vector<int64_t> sizes;
  for (int64_t k = 0, left = length; k < parts; ++k, left -= piece) sizes.push_back(std::max<int64_t>(0, std::min(piece, left)));
  return sizes;
}

static OnnxImported import_split(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis", "split", "num_outputs"});
  const Shape& shape = node.input_type(0).shape;
  int axis = import_axis(node, node.attr_int("axis", 0), shape.rank());
  std::optional<std::vector<int64_t>> sizes;
  if (node.opset() < 13 && node.has_attr("split")) sizes = node.attr_ints("split");
  if (node.opset() >= 13) sizes = optional_constant_ints(node, 1, "split");
  if (!sizes) {
    bool by_count = node.has_attr("num_outputs");
    int64_t parts = by_count ? node.attr_int("num_outputs") : node.num_outputs();
    sizes = even_split(node, shape[axis], parts, by_count);
  }
  if (static_cast<int>(sizes->size()) != node.num_outputs())
    node.fail(fmt::format("split lists {} sizes for {} outputs", sizes->size(), node.num_outputs()),
              "give one size per output");
  return {"Split", {{"axis", int64_t{axis}}, {"split", *sizes}}, {0}};
}

static void export_split(const Node& node, OnnxExportNode& out) {
  std::vector<std::string> outputs;
  for (size_t i = 0; i < node.outputs.size(); ++i) outputs.push_back(out.output(static_cast<int>(i)));
  const auto& sizes = node.attrs.get_ints("split");
  if (out.opset() < 13) {
    out.add_node("Split", {out.input(0)}, outputs, node.attrs);
    return;
  }
  std::string split = out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(sizes.size())}, sizes));
  out.add_node("Split", {out.input(0), split}, outputs, {{"axis", node.attrs.get_int("axis")}});
}

int64_t split_offset(const Attributes& attrs, int output_index) {
  int64_t offset = 0;
  const auto& sizes = attrs.get_ints("split");
  for (int k = 0; k < output_index; ++k) offset += sizes[static_cast<size_t>(k)];
  return offset;
}

namespace {

uint64_t split_point(const PointContext& context) {
  int axis = static_cast<int>(context.attrs.get_int("axis"));
  int64_t index[kMaxRank];
  std::copy(context.index, context.index + context.output.shape.rank(), index);
  index[axis] += split_offset(context.attrs, context.output_index);
  return context.pull(0, index);
}

BoxGrid split_boxes(const BoxContext& context) {
  int axis = static_cast<int>(context.attrs.get_int("axis"));
  int64_t offset = split_offset(context.attrs, context.output_index);
  std::vector<std::vector<int64_t>> cuts = context.grid(0).all_cuts();
  std::vector<int64_t> shifted;
  for (int64_t cut : cuts[static_cast<size_t>(axis)]) shifted.push_back(cut - offset);
  cuts[static_cast<size_t>(axis)] = normalize_cuts(shifted, context.output.shape[axis]);
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_Split() {
  OpDef def;
  def.name = "Split";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Split"};
  def.attrs = {attr_int("axis", 0), attr_ints("split")};
  def.num_outputs = -1;  // one per entry of `split`
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_split;
  def.compute = split_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_split;
  def.to_onnx = export_split;
  def.eval_point = split_point;
  def.propagate_boxes = split_boxes;
  return def;
}

}  // namespace pet::ops
