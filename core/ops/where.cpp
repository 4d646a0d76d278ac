// Where: condition ? x : y, elementwise with broadcasting over all three inputs; x and y may
// have any element type.
#include <cstring>

#include <fmt/format.h>

#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_where(const ShapeContext& context) {
  PET_REFUSE_UNLESS(context, context.input(0).dtype == DType::boolean,
                    "condition must be bool, got " + context.input(0).to_string());
  PET_REFUSE_UNLESS(
      context, context.input(1).dtype == context.input(2).dtype,
      fmt::format("x and y types differ: {} and {}", context.input(1).to_string(), context.input(2).to_string()));
  PET_TRY_ASSIGN(Shape shape, broadcast_inputs(context));
  return {{context.input(1).dtype, shape}};
}

static void compute_where(KernelContext& context) {
  const Tensor& condition = context.input(0);
  const Tensor& x = context.input(1);
  const Tensor& y = context.input(2);
  Tensor& out = context.outputs[0];
  BroadcastIndex condition_index(condition.shape(), out.shape());
  BroadcastIndex::Cursor condition_at = condition_index.cursor();
  BroadcastIndex x_index(x.shape(), out.shape());
  BroadcastIndex::Cursor x_at = x_index.cursor();
  BroadcastIndex y_index(y.shape(), out.shape());
  BroadcastIndex::Cursor y_at = y_index.cursor();
  size_t width = dtype_size(out.dtype());
  auto chosen = condition.b8();
  std::byte* to = out.mutable_raw();
  for (int64_t i = 0, count = out.numel(); i < count; ++i) {
    bool take_x = chosen[condition_at.next()] != 0;
    size_t x_offset = x_at.next(), y_offset = y_at.next();  // both cursors advance every element
    const std::byte* from = take_x ? x.raw() + x_offset * width : y.raw() + y_offset * width;
    std::memcpy(to + static_cast<size_t>(i) * width, from, width);
  }
}

OpDef make_Where() {
  OpDef def;
  def.name = "Where";
  def.onnx_ops = {"Where"};
  def.min_inputs = def.max_inputs = 3;
  def.traits.elementwise = true;
  def.extra_types = kAllDTypeSet;
  def.infer = infer_where;
  def.compute = compute_where;
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

}  // namespace pet::ops
