// Cast: elementwise conversion between every element type (the canonical attribute `to` names the
// target as a DType name: "f32", "u8", "bf16"...; core/element_cast.h says how). A cast
// to float16 ("f16") is a rounding op: pet computes float16 values in f32, so it rounds each
// value to the nearest float16 and keeps it as f32, matching what a runtime's float16 holds.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/float16.h"
#include "core/onnx_tensor.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static constexpr int64_t kOnnxFloat = 1;
static constexpr int64_t kOnnxFloat16 = 10;

// The element type a cast's result is held in (float16 results are held in f32).
static std::optional<DType> held_type(const std::string& target) {
  return target == "f16" ? std::optional<DType>(DType::f32) : parse_dtype(target);
}

static ShapeResult infer_cast(const ShapeContext& context) {
  const std::string& target = context.attrs.get_string("to");
  std::optional<DType> type = held_type(target);
  if (!type)
    return context.refuse(fmt::format("cannot cast to '{}'; the targets are f32, f16, bf16, f64, i8, u8, i16, u16, "
                                      "i32, u32, i64, u64 and bool",
                                      target));
  return {{*type, context.input(0).shape}};
}

static void compute_cast(KernelContext& context) {
  const Tensor& in = context.input(0);
  Tensor& out = context.outputs[0];
  if (context.attrs.get_string("to") == "f16") {
    Tensor wide = in.converted(DType::f32);
    auto values = out.mutable_f32();
    auto source = wide.f32();
    for (size_t i = 0; i < values.size(); ++i) values[i] = round_to_half(source[i]);
    return;
  }
  out = in.converted(out.dtype());
}

// CastLike (opset 15) casts to the element type of its second input.
static OnnxImported import_cast_like(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"saturate"});  // saturate only concerns float8 targets
  DType like = node.input_type(1).dtype;
  std::string target = like == DType::f32 && node.input_is_float16(1) ? "f16" : std::string(dtype_name(like));
  return {def.name, {{"to", target}}, {0}};
}

static OnnxImported import_cast(const OpDef& def, const OnnxImportNode& node) {
  if (node.op_type() == "CastLike") return import_cast_like(def, node);
  reject_unknown_attrs(node, {"to", "saturate"});  // saturate only concerns float8 targets
  int64_t code = node.attr_int("to");
  std::optional<DType> type = code == kOnnxFloat16 ? std::nullopt : dtype_of_onnx(static_cast<int>(code));
  std::string target = code == kOnnxFloat16 ? "f16" : type ? std::string(dtype_name(*type)) : "";
  if (target.empty()) node.unsupported(fmt::format("cast to ONNX element type {}", code));
  return {def.name, {{"to", target}}, {0}};
}

// The rounding cast is written as a float16 round trip, since its result is held in f32.
static void export_cast(const Node& node, OnnxExportNode& out) {
  if (node.attrs.get_string("to") == "f16") {
    std::string rounded = out.fresh_name("f16");
    out.add_node("Cast", {out.input(0)}, {rounded}, {{"to", kOnnxFloat16}});
    out.add_node("Cast", {rounded}, {out.output(0)}, {{"to", kOnnxFloat}});
    return;
  }
  DType target = *parse_dtype(node.attrs.get_string("to"));
  out.add_node("Cast", {out.input(0)}, {out.output(0)}, {{"to", int64_t{onnx_elem_type(target)}}});
}

OpDef make_Cast() {
  OpDef def;
  def.name = "Cast";
  def.onnx_ops = {"Cast", "CastLike"};
  def.attrs = {attr_string("to")};
  def.traits.elementwise = true;
  def.extra_types = kAllDTypeSet;
  def.infer = infer_cast;
  def.compute = compute_cast;
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_cast;
  def.to_onnx = export_cast;
  return def;
}

}  // namespace pet::ops
