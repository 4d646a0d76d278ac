// Pad: grows (or, with negative pads, crops) each axis, filling with a constant, the edge
// value or a mirror image; linear when the fill is the constant 0 or copies input values.
#include <algorithm>
#include <fmt/format.h>

#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/element_cast.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_pad(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  const std::string& mode = context.attrs.get_string("mode");
  const auto& pads = context.attrs.get_ints("pads");
  int rank = input.shape.rank();
  PET_REFUSE_UNLESS(context, mode == "constant" || mode == "edge" || mode == "reflect",
                    "mode '" + mode + "' is not one of constant, edge, reflect");
  PET_REFUSE_UNLESS(
      context, static_cast<int>(pads.size()) == 2 * rank,
      fmt::format("pads needs 2 x rank = {} entries for {}, got {}", 2 * rank, input.shape.to_string(), pads.size()));
  Shape out = input.shape;
  for (int axis = 0; axis < rank; ++axis) {
    int64_t dim = input.shape[axis], before = pads[static_cast<size_t>(axis)],
            after = pads[static_cast<size_t>(axis + rank)];
    out[axis] = dim + before + after;
    PET_REFUSE_UNLESS(context, out[axis] >= 0,
                      fmt::format("pads {} crop axis {} of size {} below zero", ints_to_string(pads), axis, dim));
    bool grows = before > 0 || after > 0;
    PET_REFUSE_UNLESS(context, !(grows && mode == "edge" && dim == 0), fmt::format("edge-pads empty axis {}", axis));
    PET_REFUSE_UNLESS(
        context, !(grows && mode == "reflect" && (before >= dim || after >= dim)),
        fmt::format("reflect pads {} and {} of axis {} must be smaller than its size {}", before, after, axis, dim));
  }
  return {{input.dtype, out}};
}

// Input coordinate each output coordinate of one axis reads, or -1 for the constant fill.
static std::vector<int64_t> axis_source(int64_t dim, int64_t before, int64_t out_dim, const std::string& mode) {
  std::vector<int64_t> source(static_cast<size_t>(out_dim));
  for (int64_t o = 0; o < out_dim; ++o) {
    int64_t i = o - before;
    if (i < 0 || i >= dim) {
      if (mode == "constant") i = -1;
      else if (mode == "edge") i = i < 0 ? 0 : dim - 1;
      else i = i < 0 ? -i : 2 * (dim - 1) - i;
    }
    source[static_cast<size_t>(o)] = i;
  }
  return source;
}

template <typename Element>
static void pad_typed(const Tensor& input, Tensor& out, const std::vector<std::vector<int64_t>>& sources,
                      Element fill) {
  const auto* from = reinterpret_cast<const Element*>(input.raw());
  auto* to = reinterpret_cast<Element*>(out.mutable_raw());
  int rank = out.shape().rank();
  if (rank == 0) {
    to[0] = from[0];
    return;
  }
  std::vector<int64_t> in_strides = input.shape().strides();
  int64_t row = out.shape()[rank - 1];
  const std::vector<int64_t>& inner = sources.back();
  std::vector<int64_t> index(static_cast<size_t>(rank - 1), 0);
  for (int64_t done = 0, end = out.numel(); done < end; done += row) {
    int64_t base = 0;
    bool filled = false;
    for (size_t a = 0; a + 1 < sources.size(); ++a) {
      int64_t coordinate = sources[a][static_cast<size_t>(index[a])];
      filled = filled || coordinate < 0;
      base += coordinate * in_strides[a];
    }
    for (int64_t o = 0; o < row; ++o) {
      int64_t coordinate = inner[static_cast<size_t>(o)];
      to[done + o] = filled || coordinate < 0 ? fill : from[base + coordinate];
    }
    for (int axis = rank - 2; axis >= 0; --axis) {
      auto a = static_cast<size_t>(axis);
      if (++index[a] < out.shape()[axis]) break;
      index[a] = 0;
    }
  }
}

static void pad_kernel(KernelContext& context) {
  const Tensor& input = context.input(0);
  Tensor& out = context.outputs[0];
  const auto& pads = context.attrs.get_ints("pads");
  const std::string& mode = context.attrs.get_string("mode");
  double value = context.attrs.get_float("value");
  int rank = input.shape().rank();
  if (out.numel() == 0) return;
  std::vector<std::vector<int64_t>> sources;
  for (int axis = 0; axis < rank; ++axis)
    sources.push_back(axis_source(input.shape()[axis], pads[static_cast<size_t>(axis)], out.shape()[axis], mode));
  visit_dtype(input.dtype(), [&]<DType D>() { pad_typed<storage_t<D>>(input, out, sources, narrow<D>(value)); });
}

// Pads for every axis from pads given only for `axes` (opset 18).
static std::vector<int64_t> spread_pads(const OnnxImportNode& node, const std::vector<int64_t>& pads,
                                        const std::vector<int64_t>& axes, int rank) {
  if (pads.size() != 2 * axes.size())
    node.fail(fmt::format("pads has {} entries for {} axes", pads.size(), axes.size()), "give 2 pads per axis");
  std::vector<int64_t> full(2 * static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = static_cast<size_t>(import_axis(node, axes[i], rank, "axes entry"));
    full[axis] = pads[i];
    full[axis + static_cast<size_t>(rank)] = pads[i + axes.size()];
  }
  return full;
}

static OnnxImported import_pad(const OpDef&, const OnnxImportNode& node) {
  int rank = node.input_type(0).shape.rank();
  std::string mode = node.attr_string("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") node.unsupported("mode '" + mode + "'");
  std::vector<int64_t> pads;
  double value = 0.0;
  if (node.opset() < 11) {
    reject_unknown_attrs(node, {"mode", "pads", "value"});
    pads = node.attr_ints("pads");
    value = node.attr_float("value", 0.0);
  } else {
    reject_unknown_attrs(node, {"mode"});
    pads = constant_ints(node, 1, "pads");
    if (node.has_input(2)) {
      const Tensor& constant = node.require_constant_input(2, "constant_value");
      if (constant.numel() > 0) value = constant.as_double(0);
    }
    if (auto axes = optional_constant_ints(node, 3, "axes")) pads = spread_pads(node, pads, *axes, rank);
  }
  if (static_cast<int>(pads.size()) != 2 * rank)
    node.fail(fmt::format("pads has {} entries for rank {}", pads.size(), rank), "give 2 pads per axis");
  return {"Pad", {{"mode", mode}, {"pads", pads}, {"value", value}}, {0}};
}

static void export_pad(const Node& node, OnnxExportNode& out) {
  if (out.opset() < 11) {
    out.add_node("Pad", {out.input(0)}, {out.output(0)}, node.attrs);
    return;
  }
  const auto& pads = node.attrs.get_ints("pads");
  std::vector<std::string> inputs{out.input(0), out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(pads.size())}, pads))};
  double value = node.attrs.get_float("value");
  if (value != 0.0) {
    std::optional<TensorType> type = out.input_type(0);
    DType dtype = type ? type->dtype : DType::f32;
    inputs.push_back(out.add_constant(Tensor::full(dtype, Shape{}, value)));
  }
  out.add_node("Pad", inputs, {out.output(0)}, {{"mode", node.attrs.get_string("mode")}});
}

namespace {

// The input coordinate an output coordinate reads along one axis, or -1 for the constant.
int64_t padded_source(int64_t o, int64_t before, int64_t size, const std::string& mode) {
  int64_t i = o - before;
  if (i >= 0 && i < size) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::clamp<int64_t>(i, 0, size - 1);
  while (i < 0 || i >= size) i = i < 0 ? -i : 2 * (size - 1) - i;  // reflect
  return i;
}

uint64_t pad_point(const PointContext& context) {
  const auto& pads = context.attrs.get_ints("pads");
  const std::string& mode = context.attrs.get_string("mode");
  const Shape& in = context.input(0).shape;
  int64_t index[kMaxRank];
  for (int d = 0; d < in.rank(); ++d) {
    index[d] = padded_source(context.index[d], pads[static_cast<size_t>(d)], in[d], mode);
    if (index[d] < 0) return field::from_float(context.attrs.get_float("value"));
  }
  return context.pull(0, index);
}

// Constant padding is a one-tap window over the input; edge and reflect padding read a
// different input position from every padded position, so those positions are boxes of one.
BoxGrid pad_boxes(const BoxContext& context) {
  const auto& pads = context.attrs.get_ints("pads");
  const Shape& in = context.input(0).shape;
  bool constant = context.attrs.get_string("mode") == "constant";
  std::vector<std::vector<int64_t>> cuts;
  for (int d = 0; d < in.rank(); ++d) {
    int64_t before = pads[static_cast<size_t>(d)], out = context.output.shape[d];
    std::vector<int64_t> axis_cuts = window_cuts(out, context.grid(0).cuts(d), 1, before, 1, 1);
    if (!constant)
      for (int64_t o = 0; o < out; ++o)
        if (o < before || o >= before + in[d]) {
          axis_cuts.push_back(o);
          axis_cuts.push_back(o + 1);
        }
    cuts.push_back(normalize_cuts(axis_cuts, out));
  }
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_Pad() {
  OpDef def;
  def.name = "Pad";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Pad"};
  def.attrs = {attr_string("mode", "constant"), attr_ints("pads"), attr_float("value", 0.0)};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.linear_when = [](const Attributes& attrs) {  // a non-zero fill makes it affine
    return attrs.get_string("mode") != "constant" || attrs.get_float("value") == 0.0;
  };
  def.infer = infer_pad;
  def.compute = pad_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_pad;
  def.to_onnx = export_pad;
  def.eval_point = pad_point;
  def.propagate_boxes = pad_boxes;
  return def;
}

}  // namespace pet::ops
