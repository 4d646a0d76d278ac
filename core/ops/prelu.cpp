// PRelu: x for x >= 0, slope * x below, with slope broadcast to x's shape. Canonical attribute
// channel_slope = 1 keeps opset 6's reading of a 1-D slope as one value per channel (axis 1).
#include <type_traits>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/elementwise_builders.h"

namespace pet::ops {

static constexpr DTypeSet kPReluTypes = kFloatDTypes | DTypeSet{DType::i32, DType::i64, DType::u32, DType::u64};

// The shape the slope is broadcast from: itself, or [C, 1, ..., 1] for a per-channel slope.
static Shape slope_view(const Shape& slope, const Shape& x, bool channel_slope) {
  if (!channel_slope) return slope;
  std::vector<int64_t> dims(static_cast<size_t>(std::max(x.rank() - 1, 1)), 1);
  dims[0] = slope[0];
  return Shape(dims);
}

// Whether opset 6 reads this slope per channel: 1-D, more than one value, one per channel of x.
static bool reads_as_channel_slope(const Shape& slope, const Shape& x) {
  return slope.rank() == 1 && slope[0] != 1 && x.rank() >= 3 && slope[0] == x[1];
}

static ShapeResult infer_prelu(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  const TensorType& slope = context.input(1);
  PET_TRY(check_input_type(context, kPReluTypes, 0));
  PET_REFUSE_UNLESS(context, slope.dtype == x.dtype,
                    fmt::format("x and slope types differ: {} and {}", x.to_string(), slope.to_string()));
  if (context.attrs.get_int("channel_slope") != 0) {
    PET_REFUSE_UNLESS(context, slope.shape.rank() == 1 && x.shape.rank() >= 2 && slope.shape[0] == x.shape[1],
                      fmt::format("a per-channel slope must hold one value per channel of x's shape {}, got shape {}",
                                  x.shape.to_string(), slope.shape.to_string()));
    return {x};
  }
  auto merged = broadcast_shapes(x.shape, slope.shape);
  PET_REFUSE_UNLESS(context, merged && *merged == x.shape,
                    fmt::format("slope of shape {} does not broadcast to x's shape {}", slope.shape.to_string(),
                                x.shape.to_string()));
  return {x};
}

template <DType D>
static void compute_typed_prelu(const Tensor& x, const Tensor& slope, const BroadcastIndex& slope_index, Tensor& out) {
  auto in = x.view<D>();
  auto slopes = slope.view<D>();
  auto result = out.mutable_view<D>();
  BroadcastIndex::Cursor slope_at = slope_index.cursor();
  for (size_t i = 0; i < in.size(); ++i) {
    compute_t<D> value = widen<D>(in[i]);
    compute_t<D> s = widen<D>(slopes[slope_at.next()]);
    if constexpr (std::is_signed_v<compute_t<D>>)  // floats are signed too; unsigned x is never below 0
      if (!(value >= 0)) value = wrapping_mul(s, value);
    result[i] = narrow<D>(value);
  }
}

static void compute_prelu(KernelContext& context) {
  const Tensor& x = context.input(0);
  const Tensor& slope = context.input(1);
  bool channel_slope = context.attrs.get_int("channel_slope") != 0;
  BroadcastIndex slope_index(slope_view(slope.shape(), x.shape(), channel_slope), x.shape());
  visit_allowed<kPReluTypes>(x.dtype(), [&]<DType D>() {
    compute_typed_prelu<D>(x, slope, slope_index, context.outputs[0]);
  });
}

static OnnxImported import_prelu(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {});
  bool channel_slope = node.opset() < 7 && reads_as_channel_slope(node.input_type(1).shape, node.input_type(0).shape);
  return {def.name, {{"channel_slope", int64_t{channel_slope}}}, {0, 1}};
}

// Unsqueeze of the slope at `axes` (an attribute before opset 13, an input from 13).
static std::string unsqueezed_slope(const std::vector<int64_t>& axes, OnnxExportNode& out) {
  std::string reshaped = out.fresh_name("prelu_slope");
  if (out.opset() < 13) {
    out.add_node("Unsqueeze", {out.input(1)}, {reshaped}, {{"axes", axes}});
  } else {
    std::string list = out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(axes.size())}, axes));
    out.add_node("Unsqueeze", {out.input(1), list}, {reshaped}, {});
  }
  return reshaped;
}

// Opset 7+ broadcasts numpy-style, so a per-channel slope gets trailing unit axes; opset 6
// would read a numpy slope that looks per-channel by channel, so it gets a leading unit axis.
static void export_prelu(const Node& node, OnnxExportNode& out) {
  bool channel_slope = node.attrs.get_int("channel_slope") != 0;
  std::optional<TensorType> x = out.input_type(0), slope = out.input_type(1);
  std::vector<int64_t> axes;
  if (x && slope && channel_slope && out.opset() >= 7)
    for (int axis = 1; axis < x->shape.rank() - 1; ++axis) axes.push_back(axis);
  if (x && slope && !channel_slope && out.opset() < 7 && reads_as_channel_slope(slope->shape, x->shape)) axes = {0};
  std::string slope_name = axes.empty() ? out.input(1) : unsqueezed_slope(axes, out);
  out.add_node("PRelu", {out.input(0), slope_name}, {out.output(0)}, {});
}

OpDef make_PRelu() {
  OpDef def;
  def.name = "PRelu";
  def.onnx_ops = {"PRelu"};
  def.attrs = {attr_int("channel_slope", 0)};
  def.min_inputs = def.max_inputs = 2;
  def.traits.elementwise = true;
  def.extra_types = kPReluTypes;
  def.infer = infer_prelu;
  def.compute = compute_prelu;
  def.cost = [](const CostContext& context) { return elementwise_cost(context, 2.0); };
  def.from_onnx = import_prelu;
  def.to_onnx = export_prelu;
  return def;
}

}  // namespace pet::ops
