// Cast: elementwise conversion between f32, i64 and bool (the canonical attribute `to` names the
// target as "f32", "i64" or "bool"; floats truncate toward zero, nonzero becomes true). A cast
// to float16 ("f16") is a rounding op: pet computes float16 values in f32, so it rounds each
// value to the nearest float16 and keeps it as f32, matching what a runtime's float16 holds.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/float16.h"
#include "core/ops/import_util.h"
#include "core/ops/op_util.h"

namespace pet::ops {

// ONNX TensorProto.DataType codes of the types pet holds.
static constexpr int64_t kOnnxFloat = 1;
static constexpr int64_t kOnnxInt64 = 7;
static constexpr int64_t kOnnxBool = 9;
static constexpr int64_t kOnnxFloat16 = 10;

// The element type a cast's result is held in (float16 results are held in f32).
static std::optional<DType> held_type(const std::string& target) {
  return target == "f16" ? std::optional<DType>(DType::f32) : parse_dtype(target);
}

static ShapeResult infer_cast(const ShapeContext& context) {
  const std::string& target = context.attrs.get_string("to");
  std::optional<DType> type = held_type(target);
  if (!type) return context.refuse(fmt::format("cannot cast to '{}'; the targets are f32, f16, i64 and bool", target));
  return {{*type, context.input(0).shape}};
}

// Float to integer as C truncation, with NaN -> 0 and out-of-range values saturated (C leaves them undefined).
static int64_t truncate_to_int(double value) {
  if (std::isnan(value)) return 0;
  if (value <= static_cast<double>(std::numeric_limits<int64_t>::min())) return std::numeric_limits<int64_t>::min();
  if (value >= static_cast<double>(std::numeric_limits<int64_t>::max())) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(value);
}

static void compute_cast(KernelContext& context) {
  const Tensor& in = context.input(0);
  Tensor& out = context.outputs[0];
  if (context.attrs.get_string("to") == "f16") {
    auto values = out.mutable_f32();
    for (int64_t i = 0; i < in.numel(); ++i)
      values[static_cast<size_t>(i)] = round_to_half(static_cast<float>(in.as_double(i)));
    return;
  }
  if (in.dtype() == out.dtype()) {
    out = in;
    return;
  }
  int64_t count = in.numel();
  switch (out.dtype()) {
    case DType::f32: {
      auto values = out.mutable_f32();
      for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = static_cast<float>(in.as_double(i));
      break;
    }
    case DType::i64: {
      auto values = out.mutable_i64();
      for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = truncate_to_int(in.as_double(i));
      break;
    }
    case DType::boolean: {
      auto values = out.mutable_b8();
      for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = in.as_double(i) != 0.0;
      break;
    }
  }
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
  std::string target = code == kOnnxFloat     ? "f32"
                       : code == kOnnxFloat16 ? "f16"
                       : code == kOnnxInt64   ? "i64"
                       : code == kOnnxBool    ? "bool"
                                              : "";
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
  int64_t code = target == DType::f32 ? kOnnxFloat : target == DType::i64 ? kOnnxInt64 : kOnnxBool;
  out.add_node("Cast", {out.input(0)}, {out.output(0)}, {{"to", code}});
}

OpDef make_Cast() {
  OpDef def;
  def.name = "Cast";
  def.onnx_ops = {"Cast", "CastLike"};
  def.attrs = {attr_string("to")};
  def.traits.elementwise = true;
  def.infer = infer_cast;
  def.compute = compute_cast;
  def.cost = [](const CostContext& context) { return elementwise_cost(context); };
  def.from_onnx = import_cast;
  def.to_onnx = export_cast;
  return def;
}

}  // namespace pet::ops
