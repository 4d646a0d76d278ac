// Shape: the input's dimensions start..end as an i64 vector; depends only on the input type.
#include <algorithm>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_shape(const ShapeContext& context) {
  int rank = context.input(0).shape.rank();
  int64_t start = context.attrs.get_int("start"), end = context.attrs.get_int("end");
  PET_REFUSE_UNLESS(context, start >= 0 && start <= end && end <= rank,
                    fmt::format("start {} and end {} must satisfy 0 <= start <= end <= rank {}", start, end, rank));
  return {{DType::i64, Shape{end - start}}};
}

static void shape_kernel(KernelContext& context) {
  const auto& dims = context.input(0).shape().dims();
  auto out = context.outputs[0].mutable_i64();
  auto start = static_cast<size_t>(context.attrs.get_int("start"));
  for (size_t i = 0; i < out.size(); ++i) out[i] = dims[start + i];
}

// Opset 15's start/end: negatives count from the end, then both clamp to [0, rank].
static int64_t clamp_bound(int64_t bound, int rank) {
  if (bound < 0) bound += rank;
  return std::clamp<int64_t>(bound, 0, rank);
}

static OnnxImported import_shape(const OpDef&, const OnnxImportNode& node) {
  int rank = node.input_type(0).shape.rank();
  int64_t start = 0, end = rank;
  if (node.opset() >= 15) {
    reject_unknown_attrs(node, {"start", "end"});
    start = clamp_bound(node.attr_int("start", 0), rank);
    end = node.has_attr("end") ? clamp_bound(node.attr_int("end"), rank) : rank;
  } else {
    reject_unknown_attrs(node, {});
  }
  return {"Shape", {{"start", start}, {"end", std::max(start, end)}}, {0}};
}

// Before opset 15 a partial shape becomes Shape followed by Slice.
static void export_shape(const Node& node, OnnxExportNode& out) {
  int64_t start = node.attrs.get_int("start"), end = node.attrs.get_int("end");
  std::optional<TensorType> input = out.input_type(0);
  bool whole = start == 0 && input && end == input->shape.rank();
  if (out.opset() >= 15 || whole) {
    Attributes attrs;
    if (!whole) attrs = {{"start", start}, {"end", end}};
    out.add_node("Shape", {out.input(0)}, {out.output(0)}, attrs);
    return;
  }
  std::string full = out.fresh_name(node.name + "_full_shape");
  out.add_node("Shape", {out.input(0)}, {full}, {});
  if (out.opset() < 10) {
    out.add_node("Slice", {full}, {out.output(0)}, {{"starts", std::vector<int64_t>{start}},
                                                   {"ends", std::vector<int64_t>{end}}, {"axes", std::vector<int64_t>{0}}});
    return;
  }
  out.add_node("Slice", {full, out.add_constant(Tensor::i64({1}, {start})), out.add_constant(Tensor::i64({1}, {end}))},
               {out.output(0)}, {});
}

static Cost shape_cost(const CostContext& context) { return {0.0, context.output_bytes()}; }

OpDef make_Shape() {
  OpDef def;
  def.name = "Shape";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Shape"};
  def.attrs = {attr_int("start", 0), attr_int("end")};
  def.traits.type_only = true;
  def.infer = infer_shape;
  def.compute = shape_kernel;
  def.cost = shape_cost;
  def.from_onnx = import_shape;
  def.to_onnx = export_shape;
  return def;
}

}  // namespace pet::ops
