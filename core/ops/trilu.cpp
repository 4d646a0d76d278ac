// Trilu: keeps the upper (upper = 1) or lower triangle of the last two axes, counted from the
// diagonal shifted by k (a constant input in ONNX, an attribute here), and zeroes the rest.
#include <cstring>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_trilu(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 2, "input " + x.to_string() + " needs at least two axes");
  int64_t upper = context.attrs.get_int("upper");
  PET_REFUSE_UNLESS(context, upper == 0 || upper == 1, fmt::format("upper {} must be 0 or 1", upper));
  return {x};
}

// Row r keeps columns [r + k, cols) (upper) or [0, r + k] (lower), clamped; copied per row.
static void compute_trilu(KernelContext& context) {
  const Tensor& x = context.input(0);
  const std::vector<int64_t>& dims = x.shape().dims();
  int64_t rows = dims[dims.size() - 2], cols = dims.back(), k = context.attrs.get_int("k");
  bool upper = context.attrs.get_int("upper") != 0;
  size_t width = dtype_size(x.dtype());
  int64_t matrices = dims_product(dims, 0, dims.size() - 2);
  std::byte* out = context.outputs[0].mutable_raw();
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t r = 0; r < rows; ++r) {
      int64_t first = upper ? std::clamp<int64_t>(r + k, 0, cols) : 0;
      int64_t last = upper ? cols : std::clamp<int64_t>(r + k + 1, 0, cols);
      size_t row = static_cast<size_t>((m * rows + r) * cols);
      if (last > first)
        std::memcpy(out + (row + static_cast<size_t>(first)) * width, x.raw() + (row + static_cast<size_t>(first)) * width,
                    static_cast<size_t>(last - first) * width);
    }
}

static OnnxImported import_trilu(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"upper"});
  int64_t k = 0;
  if (node.has_input(1)) {
    const Tensor& value = node.require_constant_input(1, "k");
    if (value.numel() != 1) node.fail(fmt::format("k has {} values", value.numel()), "give k as a scalar");
    k = value.as_int(0);
  }
  return {def.name, {{"upper", node.attr_int("upper", 1)}, {"k", k}}, {0}};
}

static void export_trilu(const Node& node, OnnxExportNode& out) {
  require_export_opset(node, out, 14, "Trilu");
  std::vector<std::string> inputs{out.input(0)};
  if (node.attrs.get_int("k") != 0) inputs.push_back(out.add_constant(Tensor::scalar_i64(node.attrs.get_int("k"))));
  out.add_node("Trilu", inputs, {out.output(0)}, {{"upper", node.attrs.get_int("upper")}});
}

OpDef make_Trilu() {
  OpDef def;
  def.name = "Trilu";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Trilu"};
  def.attrs = {attr_int("upper", 1), attr_int("k", 0)};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = infer_trilu;
  def.compute = compute_trilu;
  def.cost = data_movement_cost;
  def.from_onnx = import_trilu;
  def.to_onnx = export_trilu;
  return def;
}

}  // namespace pet::ops
