// GatherND: for each index tuple in the last axis of `indices` (after `batch_dims` leading axes
// shared with `data`), the data slice it addresses. Linear in `data`.
#include <cstring>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_gather_nd(const ShapeContext& context) {
  const TensorType& data = context.input(0);
  const TensorType& indices = context.input(1);
  int64_t batch = context.attrs.get_int("batch_dims");
  int rank = data.shape.rank(), index_rank = indices.shape.rank();
  PET_REFUSE_UNLESS(context, indices.dtype == DType::i64, "indices must be i64, got " + indices.to_string());
  PET_REFUSE_UNLESS(context, batch >= 0 && batch < std::min(rank, index_rank),
                    fmt::format("batch_dims {} must be below the ranks of data {} and indices {}", batch,
                                data.shape.to_string(), indices.shape.to_string()));
  auto b = static_cast<size_t>(batch);
  for (size_t d = 0; d < b; ++d)
    PET_REFUSE_UNLESS(context, data.shape.dims()[d] == indices.shape.dims()[d],
                      fmt::format("the {} batch axes of data {} and indices {} differ", batch, data.shape.to_string(),
                                  indices.shape.to_string()));
  int64_t depth = indices.shape[index_rank - 1];
  PET_REFUSE_UNLESS(context, depth >= 1 && depth <= rank - batch,
                    fmt::format("the last axis of indices {} must have between 1 and {} entries",
                                indices.shape.to_string(), rank - batch));
  std::vector<int64_t> dims(indices.shape.dims().begin(), indices.shape.dims().end() - 1);
  dims.insert(dims.end(), data.shape.dims().begin() + batch + depth, data.shape.dims().end());
  return {{data.dtype, Shape(dims)}};
}

// One memcpy of the addressed slice per index tuple, batch by batch.
static void compute_gather_nd(KernelContext& context) {
  const Tensor& data = context.input(0);
  const Tensor& indices = context.input(1);
  const std::vector<int64_t>& dims = data.shape().dims();
  std::vector<int64_t> strides = data.shape().strides();
  auto batch = static_cast<size_t>(context.attrs.get_int("batch_dims"));
  auto depth = static_cast<size_t>(indices.shape().dims().back());
  int64_t batches = dims_product(dims, 0, batch);
  int64_t batch_size = dims_product(dims, batch, dims.size());
  int64_t tuples = indices.numel() / static_cast<int64_t>(depth) / std::max<int64_t>(batches, 1);
  size_t width = dtype_size(data.dtype());
  size_t block = static_cast<size_t>(dims_product(dims, batch + depth, dims.size())) * width;
  auto values = indices.i64();
  std::byte* to = context.outputs[0].mutable_raw();
  size_t next = 0;
  for (int64_t n = 0; n < batches; ++n)
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = n * batch_size;
      for (size_t d = 0; d < depth; ++d)
        offset += checked_index(values[next++], dims[batch + d], "GatherND") * strides[batch + d];
      std::memcpy(to, data.raw() + static_cast<size_t>(offset) * width, block);
      to += block;
    }
}

static OnnxImported import_gather_nd(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"batch_dims"});
  return {def.name, {{"batch_dims", node.attr_int("batch_dims", 0)}}, {0, 1}};
}

static void export_gather_nd(const Node& node, OnnxExportNode& out) {
  require_export_opset(node, out, 11, "GatherND");
  if (node.attrs.get_int("batch_dims") != 0) require_export_opset(node, out, 12, "batch_dims");
  Attributes attrs;
  if (out.opset() >= 12) attrs.set("batch_dims", node.attrs.get_int("batch_dims"));
  out.add_node("GatherND", {out.input(0), out.input(1)}, {out.output(0)}, attrs);
}

OpDef make_GatherND() {
  OpDef def;
  def.name = "GatherND";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"GatherND"};
  def.attrs = {attr_int("batch_dims", 0)};
  def.min_inputs = def.max_inputs = 2;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = infer_gather_nd;
  def.compute = compute_gather_nd;
  def.cost = data_movement_cost;
  def.from_onnx = import_gather_nd;
  def.to_onnx = export_gather_nd;
  return def;
}

}  // namespace pet::ops
