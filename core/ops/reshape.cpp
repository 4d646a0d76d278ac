// Reshape: reinterprets the elements in row-major order under an explicit new shape.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/linear_facets.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_reshape(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  Shape out(context.attrs.get_ints("shape"));
  for (int64_t d : out.dims())
    PET_REFUSE_UNLESS(context, d >= 0,
                      "shape " + ints_to_string(out.dims()) +
                          " has a negative dimension; canonical "
                          "Reshape shapes are explicit (no 0 or -1 placeholders)");
  PET_REFUSE_UNLESS(context, out.numel() == input.shape.numel(),
                    fmt::format("cannot reshape {} ({} elements) to {} ({} elements)", input.shape.to_string(),
                                input.shape.numel(), out.to_string(), out.numel()));
  return {{input.dtype, out}};
}

// Shares the input's storage: a reshape moves no data.
static void reshape_kernel(KernelContext& context) {
  context.outputs[0] = context.input(0).reshaped(context.outputs[0].shape());
}

// ONNX's placeholders: 0 copies the input dimension (unless allowzero), one -1 is inferred.
static std::vector<int64_t> resolve_shape(const OnnxImportNode& node, const Shape& input, std::vector<int64_t> shape,
                                          bool allow_zero) {
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allow_zero) {
      if (static_cast<int>(i) >= input.rank())
        node.fail(fmt::format("shape {} copies dimension {} of the rank-{} input", ints_to_string(shape), i,
                              input.rank()),
                  "use explicit dimensions");
      shape[i] = input[static_cast<int>(i)];
    }
    if (shape[i] == -1) {
      if (inferred >= 0) node.fail("shape " + ints_to_string(shape) + " has more than one -1", "use at most one -1");
      inferred = static_cast<int>(i);
      continue;
    }
    if (shape[i] < 0) node.fail("shape " + ints_to_string(shape) + " has a negative dimension", "use -1 or sizes >= 0");
    if (__builtin_mul_overflow(known, shape[i], &known))
      node.fail("shape " + ints_to_string(shape) + " has more elements than a 64-bit count holds",
                "give a shape whose element count matches the input");
  }
  if (inferred >= 0) {
    if (known == 0 || input.numel() % known != 0)
      node.fail(fmt::format("cannot infer the -1 in shape {} for input {}", ints_to_string(shape), input.to_string()),
                "give a shape whose element count matches the input");
    shape[static_cast<size_t>(inferred)] = input.numel() / known;
  }
  return shape;
}

static OnnxImported import_reshape(const OpDef&, const OnnxImportNode& node) {
  reject_unknown_attrs(node, node.opset() >= 14 ? std::vector<std::string>{"allowzero"} : std::vector<std::string>{});
  bool allow_zero = node.attr_int("allowzero", 0) != 0;
  std::vector<int64_t> shape = resolve_shape(node, node.input_type(0).shape, constant_ints(node, 1, "shape"), allow_zero);
  return {"Reshape", {{"shape", shape}}, {0}};
}

// Before opset 14 a 0 in Reshape's shape copies the input's dimension, so a zero-size target
// dimension is written as that copy where the input's dimension is 0 as well, else as the one -1
// (no elements over the other dimensions is 0); nullopt when neither fits.
static std::optional<std::vector<int64_t>> shape_before_allowzero(const Shape& input, std::vector<int64_t> shape) {
  bool inferred = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 0 || (static_cast<int>(i) < input.rank() && input[static_cast<int>(i)] == 0)) continue;
    if (inferred) return std::nullopt;
    shape[i] = -1;
    inferred = true;
  }
  return shape;
}

static void export_reshape(const Node& node, OnnxExportNode& out) {
  std::vector<int64_t> shape = node.attrs.get_ints("shape");
  bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
  Attributes attrs;
  if (has_zero && out.opset() < 14) {
    std::optional<std::vector<int64_t>> written = shape_before_allowzero(out.input_type(0)->shape, shape);
    if (!written)
      throw UserError(fmt::format("node '{}' (Reshape): the zero-size shape {} needs allowzero (opset 14); export "
                                  "with --opset 14 or later",
                                  node.name, ints_to_string(shape)));
    shape = *written;
  } else if (has_zero) {
    attrs.set("allowzero", int64_t{1});
  }
  std::string target = out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(shape.size())}, shape));
  out.add_node("Reshape", {out.input(0), target}, {out.output(0)}, attrs);
}

OpDef make_Reshape() {
  OpDef def;
  def.name = "Reshape";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"Reshape"};
  def.attrs = {attr_ints("shape")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.traits.view = true;
  def.infer = infer_reshape;
  def.compute = reshape_kernel;
  def.cost = data_movement_cost;
  def.from_onnx = import_reshape;
  def.to_onnx = export_reshape;
  def.eval_point = row_major_point();
  def.propagate_boxes = row_major_boxes();
  return def;
}

}  // namespace pet::ops
