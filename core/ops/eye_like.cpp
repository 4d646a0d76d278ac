// EyeLike: a 2-D tensor shaped like the input with ones on the diagonal shifted by k and zeros
// elsewhere, of element type `dtype` (a DType name; the input's type unless ONNX names
// another). Depends only on the input's type, so it always folds.
#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/onnx_tensor.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_eye_like(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  PET_REFUSE_UNLESS(context, x.shape.rank() == 2, "input " + x.to_string() + " must be 2-D");
  const std::string& name = context.attrs.get_string("dtype");
  std::optional<DType> type = parse_dtype(name);
  PET_REFUSE_UNLESS(context, type.has_value(),
                    fmt::format("dtype '{}' is not an element type pet holds", name));
  return {{*type, x.shape}};
}

static void compute_eye_like(KernelContext& context) {
  Tensor& out = context.outputs[0];
  int64_t rows = out.shape()[0], cols = out.shape()[1], k = context.attrs.get_int("k");
  visit_dtype(out.dtype(), [&]<DType D>() {
    auto data = out.mutable_view<D>();
    storage_t<D> one = narrow<D>(1);
    for (int64_t r = std::max<int64_t>(0, -k); r < rows && r + k < cols; ++r) data[static_cast<size_t>(r * cols + r + k)] = one;
  });
}

static OnnxImported import_eye_like(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"dtype", "k"});
  DType type = node.input_type(0).dtype;
  if (node.has_attr("dtype")) {
    std::optional<DType> named = dtype_from_onnx_code(node.attr_int("dtype"));
    if (!named) node.unsupported(fmt::format("dtype {} (ONNX element type code)", node.attr_int("dtype")));
    type = *named;
  }
  return {def.name, {{"dtype", std::string(dtype_name(type))}, {"k", node.attr_int("k", 0)}}, {0}};
}

static void export_eye_like(const Node& node, OnnxExportNode& out) {
  Attributes attrs{{"dtype", int64_t{onnx_elem_type(*parse_dtype(node.attrs.get_string("dtype")))}},
                   {"k", node.attrs.get_int("k")}};
  out.add_node("EyeLike", {out.input(0)}, {out.output(0)}, attrs);
}

OpDef make_EyeLike() {
  OpDef def;
  def.name = "EyeLike";
  def.onnx_ops = {"EyeLike"};
  def.attrs = {attr_string("dtype"), attr_int("k", 0)};
  def.traits.type_only = true;
  def.extra_types = kAllDTypeSet;
  def.infer = infer_eye_like;
  def.compute = compute_eye_like;
  def.cost = data_movement_cost;
  def.from_onnx = import_eye_like;
  def.to_onnx = export_eye_like;
  return def;
}

}  // namespace pet::ops
