// Expand: broadcasts the input to a shape (numpy rules, in both directions); copies values.
#include <algorithm>
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/strided_copy.h"

namespace pet::ops {

static ShapeResult infer_expand(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  Shape target(context.attrs.get_ints("shape"));
  std::optional<Shape> out = broadcast_shapes(input.shape, target);
  PET_REFUSE_UNLESS(context, out.has_value(),
                    "cannot broadcast " + input.shape.to_string() + " to " + target.to_string());
  return {{input.dtype, *out}};
}

static void expand_kernel(KernelContext& context) {
  const Tensor& input = context.input(0);
  Tensor& out = context.outputs[0];
  int offset = out.shape().rank() - input.shape().rank();
  std::vector<int64_t> own = input.shape().strides();
  StridedView view{0, out.shape().dims(), std::vector<int64_t>(static_cast<size_t>(out.shape().rank()), 0)};
  for (int d = 0; d < input.shape().rank(); ++d)
    if (input.shape()[d] != 1) view.strides[static_cast<size_t>(d + offset)] = own[static_cast<size_t>(d)];
  copy_strided(input, view, out);
}

// The canonical shape is the broadcast result, so the attribute alone says the output shape.
static OnnxImported import_expand(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {});
  const Shape& input = node.input_type(0).shape;
  Shape target(constant_ints(node, 1, "shape"));
  std::optional<Shape> out = broadcast_shapes(input, target);
  if (!out) node.fail("cannot broadcast " + input.to_string() + " to " + target.to_string(), "fix the shape input");
  return {"Expand", {{"shape", out->dims()}}, {0}};
}

static void export_expand(const Node& node, OnnxExportNode& out) {
  const auto& shape = node.attrs.get_ints("shape");
  std::string target = out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(shape.size())}, shape));
  out.add_node("Expand", {out.input(0), target}, {out.output(0)}, {});
}

namespace {

}  // namespace

OpDef make_Expand() {
  OpDef def;
  def.name = "Expand";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Expand"};
  def.attrs = {attr_ints("shape")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_expand;
  def.compute = expand_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_expand;
  def.to_onnx = export_expand;
  def.eval_point = elementwise_point([](const uint64_t* v, int) { return v[0]; });
  def.propagate_boxes = elementwise_boxes();
  return def;
}

}  // namespace pet::ops
