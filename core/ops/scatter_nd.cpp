// ScatterND: a copy of `data` whose slices at the index tuples in the last axis of `indices`
// are replaced by (or, with reduction add/mul/max/min, combined with) the matching slices of `updates`.
#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_scatter_nd(const ShapeContext& context) {
  const TensorType& data = context.input(0);
  const TensorType& indices = context.input(1);
  const TensorType& updates = context.input(2);
  PET_TRY(check_scatter_reduction(context));
  PET_REFUSE_UNLESS(context, indices.dtype == DType::i64, "indices must be i64, got " + indices.to_string());
  PET_REFUSE_UNLESS(
      context, updates.dtype == data.dtype,
      fmt::format("updates {} and data {} differ in element type", updates.to_string(), data.to_string()));
  int rank = data.shape.rank(), index_rank = indices.shape.rank();
  PET_REFUSE_UNLESS(context, index_rank >= 1, "indices must have at least one axis");
  int64_t depth = indices.shape[index_rank - 1];
  PET_REFUSE_UNLESS(context, depth >= 1 && depth <= rank,
                    fmt::format("the last axis of indices {} must have between 1 and {} "
                                "entries (the data rank)",
                                indices.shape.to_string(), rank));
  std::vector<int64_t> expected(indices.shape.dims().begin(), indices.shape.dims().end() - 1);
  expected.insert(expected.end(), data.shape.dims().begin() + depth, data.shape.dims().end());
  PET_REFUSE_UNLESS(context, updates.shape == Shape(expected),
                    fmt::format("updates shape {} must be {} (indices without its last "
                                "axis, then the data axes after the indexed ones)",
                                updates.shape.to_string(), Shape(expected).to_string()));
  return {data};
}

// Element offset in data of every index tuple.
static std::vector<int64_t> tuple_offsets(const Tensor& data, const Tensor& indices) {
  const std::vector<int64_t>& dims = data.shape().dims();
  std::vector<int64_t> strides = data.shape().strides();
  auto depth = static_cast<size_t>(indices.shape().dims().back());
  auto values = indices.i64();
  std::vector<int64_t> offsets;
  for (size_t start = 0; start < values.size(); start += depth) {
    int64_t offset = 0;
    for (size_t d = 0; d < depth; ++d) offset += checked_index(values[start + d], dims[d], "ScatterND") * strides[d];
    offsets.push_back(offset);
  }
  return offsets;
}

static void compute_scatter_nd(KernelContext& context) {
  const Tensor& data = context.input(0);
  const Tensor& indices = context.input(1);
  Tensor& out = context.outputs[0];
  out = data;
  auto depth = static_cast<size_t>(indices.shape().dims().back());
  int64_t block = dims_product(data.shape().dims(), depth, data.shape().dims().size());
  scatter_blocks(out, context.input(2), tuple_offsets(data, indices), block, context.attrs.get_string("reduction"));
}

static OnnxImported import_scatter_nd(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"reduction"});
  return {def.name, {{"reduction", import_scatter_reduction(node)}}, {0, 1, 2}};
}

static void export_scatter_nd(const Node& node, OnnxExportNode& out) {
  require_export_opset(node, out, 11, "ScatterND");
  Attributes attrs;
  export_scatter_reduction(node, out, attrs);
  out.add_node("ScatterND", {out.input(0), out.input(1), out.input(2)}, {out.output(0)}, attrs);
}

OpDef make_ScatterND() {
  OpDef def;
  def.name = "ScatterND";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"ScatterND"};
  def.attrs = {attr_string("reduction", "none")};
  def.min_inputs = def.max_inputs = 3;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0, 2};
  def.traits.linear_when = scatter_is_linear;
  def.infer = infer_scatter_nd;
  def.compute = compute_scatter_nd;
  def.cost = data_movement_cost;
  def.from_onnx = import_scatter_nd;
  def.to_onnx = export_scatter_nd;
  return def;
}

}  // namespace pet::ops
