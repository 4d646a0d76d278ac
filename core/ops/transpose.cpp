// Transpose: permutes the axes (output axis i is input axis perm[i]); a pure layout change.
#include <algorithm>
#include <fmt/format.h>

#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/strided_copy.h"

namespace pet::ops {

static ShapeResult infer_transpose(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  const auto& perm = context.attrs.get_ints("perm");
  int rank = input.shape.rank();
  PET_REFUSE_UNLESS(context, static_cast<int>(perm.size()) == rank,
                    fmt::format("perm {} has {} entries for rank {}", ints_to_string(perm), perm.size(), rank));
  std::vector<bool> seen(perm.size(), false);
  Shape out = input.shape;
  for (int i = 0; i < rank; ++i) {
    int64_t axis = perm[static_cast<size_t>(i)];
    PET_REFUSE_UNLESS(context, axis >= 0 && axis < rank && !seen[static_cast<size_t>(axis)],
                      "perm " + ints_to_string(perm) + " is not a permutation of 0.." + std::to_string(rank - 1));
    seen[static_cast<size_t>(axis)] = true;
    out[i] = input.shape[static_cast<int>(axis)];
  }
  return {{input.dtype, out}};
}

static void transpose_kernel(KernelContext& context) {
  const Tensor& input = context.input(0);
  const auto& perm = context.attrs.get_ints("perm");
  std::vector<int64_t> strides = input.shape().strides();
  StridedView view{0, context.outputs[0].shape().dims(), {}};
  for (int64_t axis : perm) view.strides.push_back(strides[static_cast<size_t>(axis)]);
  copy_strided(input, view, context.outputs[0]);
}

static OnnxImported import_transpose(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"perm"});
  int rank = node.input_type(0).shape.rank();
  std::vector<int64_t> reversed;
  for (int axis = rank - 1; axis >= 0; --axis) reversed.push_back(axis);
  return {"Transpose", {{"perm", node.attr_ints("perm", reversed)}}, {0}};
}

namespace {

// out[i0, i1, ...] = in[...] with input axis perm[k] at output coordinate k.
uint64_t transpose_point(const PointContext& context) {
  const auto& perm = context.attrs.get_ints("perm");
  int64_t index[kMaxRank];
  for (size_t k = 0; k < perm.size(); ++k) index[perm[k]] = context.index[k];
  return context.pull(0, index);
}

BoxGrid transpose_boxes(const BoxContext& context) {
  std::vector<std::vector<int64_t>> cuts;
  for (int64_t axis : context.attrs.get_ints("perm")) cuts.push_back(context.grid(0).cuts(static_cast<int>(axis)));
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_Transpose() {
  OpDef def;
  def.name = "Transpose";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Transpose"};
  def.attrs = {attr_ints("perm")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_transpose;
  def.compute = transpose_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_transpose;
  def.to_onnx = export_same_name;
  def.eval_point = transpose_point;
  def.propagate_boxes = transpose_boxes;
  return def;
}

}  // namespace pet::ops
