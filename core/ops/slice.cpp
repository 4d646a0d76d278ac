// Slice: a strided window with explicit per-axis starts/ends/steps (steps may be negative).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/strided_copy.h"

namespace pet::ops {

// Elements an axis keeps for a canonical (already clamped) start, end and step.
static int64_t slice_length(int64_t start, int64_t end, int64_t step) {
  int64_t span = step > 0 ? end - start : start - end;
  int64_t stride = step > 0 ? step : -step;
  return span <= 0 ? 0 : (span + stride - 1) / stride;
}

static ShapeResult infer_slice(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  const auto& starts = context.attrs.get_ints("starts");
  const auto& ends = context.attrs.get_ints("ends");
  const auto& steps = context.attrs.get_ints("steps");
  int rank = input.shape.rank();
  PET_REFUSE_UNLESS(context,
                    static_cast<int>(starts.size()) == rank && static_cast<int>(ends.size()) == rank &&
                        static_cast<int>(steps.size()) == rank,
                    fmt::format("starts, ends and steps need one entry per axis of {} (rank {}), got {}, {} and {}",
                                input.shape.to_string(), rank, starts.size(), ends.size(), steps.size()));
  Shape out = input.shape;
  for (int axis = 0; axis < rank; ++axis) {
    auto a = static_cast<size_t>(axis);
    int64_t dim = input.shape[axis];
    PET_REFUSE_UNLESS(context, steps[a] != 0, fmt::format("step of axis {} is 0", axis));
    bool in_range = steps[a] > 0 ? (starts[a] >= 0 && starts[a] <= dim && ends[a] >= 0 && ends[a] <= dim)
                                 : (starts[a] >= 0 && starts[a] <= std::max<int64_t>(dim - 1, 0) && ends[a] >= -1 &&
                                    ends[a] <= dim - 1);
    PET_REFUSE_UNLESS(context, in_range,
                      fmt::format("axis {} of size {}: start {} / end {} with step {} are outside the "
                                  "canonical (clamped, non-negative) range",
                                  axis, dim, starts[a], ends[a], steps[a]));
    out[axis] = dim == 0 ? 0 : slice_length(starts[a], ends[a], steps[a]);
  }
  return {{input.dtype, out}};
}

static void slice_kernel(KernelContext& context) {
  const Tensor& input = context.input(0);
  const auto& starts = context.attrs.get_ints("starts");
  const auto& steps = context.attrs.get_ints("steps");
  std::vector<int64_t> strides = input.shape().strides();
  StridedView view{0, context.outputs[0].shape().dims(), {}};
  for (size_t a = 0; a < strides.size(); ++a) {
    view.offset += starts[a] * strides[a];
    view.strides.push_back(strides[a] * steps[a]);
  }
  copy_strided(input, view, context.outputs[0]);
}

// ONNX's clamping of one axis: negatives count from the end, then clamp to the valid range.
static void clamp_axis(int64_t dim, int64_t& start, int64_t& end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, std::max<int64_t>(dim - 1, 0));
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
}

struct SliceRequest {
  std::vector<int64_t> starts, ends, axes, steps;
};

static SliceRequest read_slice_request(const OnnxImportNode& node) {
  SliceRequest request;
  if (node.opset() < 10) {
    reject_unknown_attrs(node, {"starts", "ends", "axes"});
    request.starts = node.attr_ints("starts");
    request.ends = node.attr_ints("ends");
    if (node.has_attr("axes")) request.axes = node.attr_ints("axes");
  } else {
    reject_unknown_attrs(node, {});
    request.starts = constant_ints(node, 1, "starts");
    request.ends = constant_ints(node, 2, "ends");
    request.axes = optional_constant_ints(node, 3, "axes").value_or(std::vector<int64_t>{});
    request.steps = optional_constant_ints(node, 4, "steps").value_or(std::vector<int64_t>{});
  }
  if (request.axes.empty())
    for (size_t i = 0; i < request.starts.size(); ++i) request.axes.push_back(static_cast<int64_t>(i));
  if (request.steps.empty()) request.steps.assign(request.starts.size(), 1);
  size_t count = request.starts.size();
  if (request.ends.size() != count || request.axes.size() != count || request.steps.size() != count)
    node.fail(fmt::format("starts, ends, axes and steps have {}, {}, {} and {} entries", count, request.ends.size(),
                          request.axes.size(), request.steps.size()),
              "give the same number of entries in each");
  return request;
}

static OnnxImported import_slice(const OpDef&, const OnnxImportNode& node) {
  const Shape& shape = node.input_type(0).shape;
  SliceRequest request = read_slice_request(node);
  std::vector<int64_t> starts(static_cast<size_t>(shape.rank()), 0), ends = shape.dims(),
      steps(static_cast<size_t>(shape.rank()), 1);
  std::vector<bool> seen(static_cast<size_t>(shape.rank()), false);
  for (size_t i = 0; i < request.axes.size(); ++i) {
    auto axis = static_cast<size_t>(import_axis(node, request.axes[i], shape.rank(), "axes entry"));
    if (seen[axis]) node.fail("axes " + ints_to_string(request.axes) + " repeat an axis", "list each axis once");
    seen[axis] = true;
    if (request.steps[i] == 0) node.fail("a step of 0", "use non-zero steps");
    starts[axis] = request.starts[i];
    ends[axis] = request.ends[i];
    steps[axis] = request.steps[i];
    clamp_axis(shape[static_cast<int>(axis)], starts[axis], ends[axis], steps[axis]);
  }
  return {"Slice", {{"starts", starts}, {"ends", ends}, {"steps", steps}}, {0}};
}

static void export_slice(const Node& node, OnnxExportNode& out) {
  std::vector<int64_t> starts = node.attrs.get_ints("starts"), ends = node.attrs.get_ints("ends");
  const auto& steps = node.attrs.get_ints("steps");
  std::vector<int64_t> axes;
  for (size_t a = 0; a < starts.size(); ++a) {
    axes.push_back(static_cast<int64_t>(a));
    // ONNX reads end -1 as "the last element"; the lowest int64 clamps to "before the first".
    if (steps[a] < 0 && ends[a] == -1) ends[a] = std::numeric_limits<int64_t>::min();
  }
  if (out.opset() < 10) {
    for (int64_t step : steps)
      if (step != 1) throw UserError(fmt::format("node '{}' (Slice): steps other than 1 need opset 10 or newer; "
                                                 "export with --opset 10 or later", node.name));
    out.add_node("Slice", {out.input(0)}, {out.output(0)}, {{"starts", starts}, {"ends", ends}, {"axes", axes}});
    return;
  }
  auto constant = [&](const std::vector<int64_t>& values) {
    return out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(values.size())}, values));
  };
  out.add_node("Slice", {out.input(0), constant(starts), constant(ends), constant(axes), constant(steps)},
               {out.output(0)}, {});
}

namespace {

uint64_t slice_point(const PointContext& context) {
  const auto& starts = context.attrs.get_ints("starts");
  const auto& steps = context.attrs.get_ints("steps");
  int64_t index[kMaxRank];
  for (int d = 0; d < context.output.shape.rank(); ++d)
    index[d] = starts[static_cast<size_t>(d)] + context.index[d] * steps[static_cast<size_t>(d)];
  return context.pull(0, index);
}

// Output position o reads input start + o * step: a one-tap window with stride `step`.
BoxGrid slice_boxes(const BoxContext& context) {
  const auto& starts = context.attrs.get_ints("starts");
  const auto& steps = context.attrs.get_ints("steps");
  std::vector<std::vector<int64_t>> cuts;
  for (int d = 0; d < context.output.shape.rank(); ++d)
    cuts.push_back(window_cuts(context.output.shape[d], context.grid(0).cuts(d), steps[static_cast<size_t>(d)],
                               -starts[static_cast<size_t>(d)], 1, 1));
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_Slice() {
  OpDef def;
  def.name = "Slice";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Slice"};
  def.attrs = {attr_ints("starts"), attr_ints("ends"), attr_ints("steps")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_slice;
  def.compute = slice_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_slice;
  def.to_onnx = export_slice;
  def.eval_point = slice_point;
  def.propagate_boxes = slice_boxes;
  return def;
}

}  // namespace pet::ops
