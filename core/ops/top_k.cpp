// TopK: the k largest (or smallest, largest = 0) elements along `axis`, in order, and their i64
// positions; equal values keep their input order. ONNX's k input is a constant attribute here;
// sorted = 0 leaves the order open, so the sorted result serves it too.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_top_k(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  PET_REFUSE_UNLESS(context, x.dtype != DType::boolean, "does not support element type bool");
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 1, "cannot select from a scalar");
  PET_TRY_ASSIGN(int axis, axis_or_refuse(context, context.attrs.get_int("axis"), x.shape.rank(), "axis"));
  int64_t k = context.attrs.get_int("k"), largest = context.attrs.get_int("largest");
  PET_REFUSE_UNLESS(
      context, k >= 0 && k <= x.shape[axis],
      fmt::format("k {} must be in [0, {}] (axis {} of {})", k, x.shape[axis], axis, x.shape.to_string()));
  PET_REFUSE_UNLESS(context, largest == 0 || largest == 1, fmt::format("largest {} must be 0 or 1", largest));
  Shape shape = x.shape;
  shape[axis] = k;
  return {{x.dtype, shape}, {DType::i64, shape}};
}

template <DType D>
static void select_top_k(const storage_t<D>* in, storage_t<D>* values, int64_t* positions, const std::vector<int64_t>& dims, size_t axis,
                         int64_t k, bool largest) {
  int64_t length = dims[axis], inner = dims_product(dims, axis + 1, dims.size());
  int64_t outer = dims_product(dims, 0, axis);
  std::vector<int64_t> order(static_cast<size_t>(length));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const storage_t<D>* line = in + o * length * inner + j;
      auto before = [&](int64_t a, int64_t b) {
        compute_t<D> x = widen<D>(line[a * inner]), y = widen<D>(line[b * inner]);
        return largest ? (x > y || (x == y && a < b)) : (x < y || (x == y && a < b));
      };
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t i = 0; i < k; ++i) {
        int64_t at = (o * k + i) * inner + j;
        positions[at] = order[static_cast<size_t>(i)];
        values[at] = line[order[static_cast<size_t>(i)] * inner];
      }
    }
}

static void compute_top_k(KernelContext& context) {
  const Tensor& x = context.input(0);
  auto axis = static_cast<size_t>(normalize_axis(context.attrs.get_int("axis"), x.shape().rank()));
  int64_t k = context.attrs.get_int("k");
  bool largest = context.attrs.get_int("largest") != 0;
  int64_t* positions = context.outputs[1].mutable_i64().data();
  visit_dtype(x.dtype(), [&]<DType D>() {
    select_top_k<D>(x.view<D>().data(), context.outputs[0].mutable_view<D>().data(), positions, x.shape().dims(), axis,
                    k, largest);
  });
}

static OnnxImported import_top_k(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"axis", "k", "largest", "sorted"});
  int64_t k = 0;
  if (node.opset() < 10) {
    k = node.attr_int("k");
  } else {
    const Tensor& value = node.require_constant_input(1, "k");
    if (value.numel() != 1) node.fail(fmt::format("k has {} values", value.numel()), "give k as a one-element tensor");
    k = value.as_int(0);
  }
  int rank = node.input_type(0).shape.rank();
  Attributes attrs{{"axis", int64_t{import_axis(node, node.attr_int("axis", -1), rank)}},
                   {"k", k},
                   {"largest", node.attr_int("largest", 1)}};
  return {def.name, attrs, {0}};
}

static void export_top_k(const Node& node, OnnxExportNode& out) {
  int64_t k = node.attrs.get_int("k"), largest = node.attrs.get_int("largest");
  if (largest == 0) require_export_opset(node, out, 11, "largest=0");
  Attributes attrs{{"axis", node.attrs.get_int("axis")}};
  std::vector<std::string> inputs{out.input(0)};
  if (out.opset() < 10)
    attrs.set("k", k);
  else
    inputs.push_back(out.add_constant(Tensor::i64(Shape{1}, {k})));
  if (out.opset() >= 11) attrs.set("largest", largest);
  out.add_node("TopK", inputs, {out.output(0), out.output(1)}, attrs);
}

OpDef make_TopK() {
  OpDef def;
  def.name = "TopK";
  def.extra_types = kNumericDTypes;
  def.onnx_ops = {"TopK"};
  def.attrs = {attr_int("axis", -1), attr_int("k"), attr_int("largest", 1)};
  def.num_outputs = 2;
  def.infer = infer_top_k;
  def.compute = compute_top_k;
  def.cost = [](const CostContext& context) {
    double compares = static_cast<double>(context.input(0).shape.numel());
    return Cost{compares, context.input_bytes() + context.output_bytes()};
  };
  def.from_onnx = import_top_k;
  def.to_onnx = export_top_k;
  return def;
}

}  // namespace pet::ops
