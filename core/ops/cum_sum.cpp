// CumSum: running sums along `axis` (a constant input in ONNX, an attribute here), optionally
// excluding the current element (exclusive) and running from the end (reverse). Linear.
#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

// ONNX's CumSum types beyond f32 and i64.
static constexpr DTypeSet kCumSumDTypes = {DType::f64, DType::bf16, DType::i32, DType::u32, DType::u64};

static ShapeResult infer_cum_sum(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  PET_REFUSE_UNLESS(context, kCumSumDTypes.contains(x.dtype) || x.dtype == DType::f32 || x.dtype == DType::i64,
                    "does not support element type " + std::string(dtype_name(x.dtype)));
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 1, "cannot sum along an axis of a scalar");
  PET_TRY(axis_or_refuse(context, context.attrs.get_int("axis"), x.shape.rank(), "axis"));
  for (const char* flag : {"exclusive", "reverse"}) {
    int64_t value = context.attrs.get_int(flag);
    PET_REFUSE_UNLESS(context, value == 0 || value == 1, fmt::format("{} {} must be 0 or 1", flag, value));
  }
  return {x};
}

// Sums run in the arithmetic type (bf16 in float, rounded at every output).
template <DType D>
static void cumulate(const storage_t<D>* in, storage_t<D>* out, const std::vector<int64_t>& dims, size_t axis,
                     bool exclusive, bool reverse) {
  int64_t length = dims[axis], inner = dims_product(dims, axis + 1, dims.size());
  int64_t outer = dims_product(dims, 0, axis);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      compute_t<D> sum = 0;
      for (int64_t step = 0; step < length; ++step) {
        int64_t t = reverse ? length - 1 - step : step;
        int64_t at = (o * length + t) * inner + j;
        if (exclusive) {
          out[at] = narrow<D>(sum);
          sum += widen<D>(in[at]);
        } else {
          sum += widen<D>(in[at]);
          out[at] = narrow<D>(sum);
        }
      }
    }
}

static void compute_cum_sum(KernelContext& context) {
  const Tensor& x = context.input(0);
  auto axis = static_cast<size_t>(normalize_axis(context.attrs.get_int("axis"), x.shape().rank()));
  bool exclusive = context.attrs.get_int("exclusive") != 0, reverse = context.attrs.get_int("reverse") != 0;
  visit_dtype(x.dtype(), [&]<DType D>() {
    if constexpr (D != DType::boolean)
      cumulate<D>(x.view<D>().data(), context.outputs[0].mutable_view<D>().data(), x.shape().dims(), axis, exclusive,
                  reverse);
  });
}

static OnnxImported import_cum_sum(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"exclusive", "reverse"});
  const Tensor& axis = node.require_constant_input(1, "axis");
  if (axis.numel() != 1) node.fail(fmt::format("axis has {} values", axis.numel()), "give axis as a scalar");
  int rank = node.input_type(0).shape.rank();
  return {def.name,
          {{"axis", int64_t{import_axis(node, axis.as_int(0), rank)}},
           {"exclusive", node.attr_int("exclusive", 0)},
           {"reverse", node.attr_int("reverse", 0)}},
          {0}};
}

static void export_cum_sum(const Node& node, OnnxExportNode& out) {
  require_export_opset(node, out, 11, "CumSum");
  std::string axis = out.add_constant(Tensor::scalar_i64(node.attrs.get_int("axis")));
  out.add_node("CumSum", {out.input(0), axis}, {out.output(0)},
               {{"exclusive", node.attrs.get_int("exclusive")}, {"reverse", node.attrs.get_int("reverse")}});
}

OpDef make_CumSum() {
  OpDef def;
  def.name = "CumSum";
  def.extra_types = kCumSumDTypes;
  def.onnx_ops = {"CumSum"};
  def.attrs = {attr_int("axis"), attr_int("exclusive", 0), attr_int("reverse", 0)};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = infer_cum_sum;
  def.compute = compute_cum_sum;
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_cum_sum;
  def.to_onnx = export_cum_sum;
  return def;
}

}  // namespace pet::ops
