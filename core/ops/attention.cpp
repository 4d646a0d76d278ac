// Attention (ONNX Runtime's com.microsoft contrib op, with an additive attention bias, optionally
// unidirectional, and without mask_index or past): one projection of the input to Q, K and V, then
// per head softmax(scale * Q K^T + bias + causal) V, heads side by side, where causal adds
// mask_filter_value to every key after its query; written as itself for ONNX Runtime, whose CPU
// kernel runs it as one op, and lowered to standard ops for every other reader.
#include <cmath>

#include <fmt/format.h>

#include "core/gemm.h"
#include "core/onnx_mapping.h"
#include "core/ops/op_util.h"
#include "core/ops/softmax_common.h"

namespace pet::ops {
namespace {

// The contrib op's inputs pet computes: input [batch, sequence, input_hidden], weights
// [input_hidden, 3 * hidden], bias [3 * hidden], and attention_bias [batch or 1, heads or 1,
// sequence, sequence] added to the scaled scores; mask_index and past (inputs 3 and 4) stay absent.
constexpr int kMaskIndex = 3, kPast = 4, kAttentionBias = 5;

struct AttentionShape {
  int64_t batch = 0, sequence = 0, input_hidden = 0, hidden = 0, heads = 0, head_size = 0;
};

AttentionShape attention_shape(const Shape& input, const Shape& weights, int64_t heads) {
  AttentionShape s;
  s.batch = input[0];
  s.sequence = input[1];
  s.input_hidden = input[2];
  s.hidden = weights[1] / 3;
  s.heads = heads;
  s.head_size = heads > 0 ? s.hidden / heads : 0;
  return s;
}

// The scale of Q K^T: the attribute, or 1/sqrt(head_size) where it is 0 (the contrib op's default).
float attention_scale(const Attributes& attrs, int64_t head_size) {
  double scale = attrs.get_float("scale");
  return static_cast<float>(scale != 0.0 ? scale : 1.0 / std::sqrt(static_cast<double>(head_size)));
}

ShapeResult infer_attention(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  const TensorType& weights = context.input(1);
  const TensorType& bias = context.input(2);
  for (const TensorType* type : {&input, &weights, &bias})
    PET_REFUSE_UNLESS(context, type->dtype == DType::f32, "expects float32 inputs, got " + type->to_string());
  PET_REFUSE_UNLESS(context, input.shape.rank() == 3,
                    "input must be [batch, sequence, hidden], got " + input.shape.to_string());
  PET_REFUSE_UNLESS(context, weights.shape.rank() == 2 && weights.shape[0] == input.shape[2] && weights.shape[1] % 3 == 0,
                    fmt::format("weights must be [{}, 3 * hidden], got {}", input.shape[2], weights.shape.to_string()));
  PET_REFUSE_UNLESS(context, bias.shape.rank() == 1 && bias.shape[0] == weights.shape[1],
                    fmt::format("bias must be [{}], got {}", weights.shape[1], bias.shape.to_string()));
  int64_t heads = context.attrs.get_int("num_heads");
  int64_t hidden = weights.shape[1] / 3;
  PET_REFUSE_UNLESS(context, heads > 0 && hidden % heads == 0 && hidden > 0,
                    fmt::format("num_heads {} must divide the hidden size {} (and both be positive)", heads, hidden));
  double scale = context.attrs.get_float("scale");
  PET_REFUSE_UNLESS(context, std::isfinite(scale), fmt::format("scale must be finite, got {}", scale));
  int64_t unidirectional = context.attrs.get_int("unidirectional");
  PET_REFUSE_UNLESS(context, unidirectional == 0 || unidirectional == 1,
                    fmt::format("unidirectional must be 0 or 1, got {}", unidirectional));
  double filter = context.attrs.get_float("mask_filter_value");
  PET_REFUSE_UNLESS(context, std::isfinite(filter),
                    fmt::format("mask_filter_value must be finite, got {} (the float's lowest value masks as -inf "
                                "does, without an -inf in the sums)",
                                filter));
  PET_REFUSE_UNLESS(context, !context.has_input(kMaskIndex) && !context.has_input(kPast),
                    "mask_index and past (inputs 3 and 4) are not supported; give the mask as the additive "
                    "attention_bias (input 5) instead");
  if (context.has_input(kAttentionBias)) {
    const TensorType& added = context.input(kAttentionBias);
    const Shape& s = added.shape;
    int64_t batch = input.shape[0], sequence = input.shape[1];
    PET_REFUSE_UNLESS(context, added.dtype == DType::f32 && s.rank() == 4 && (s[0] == batch || s[0] == 1) &&
                                   (s[1] == heads || s[1] == 1) && s[2] == sequence && s[3] == sequence,
                      fmt::format("attention_bias must be f32[{} or 1, {} or 1, {}, {}], got {}", batch, heads, sequence,
                                  sequence, added.to_string()));
  }
  return {{DType::f32, Shape{input.shape[0], input.shape[1], hidden}}};
}

// ONNX Runtime's causal mask: mask_filter_value added to the scores of every key after its query.
void add_causal_mask(float* scores, int64_t sequence, float filter) {
  for (int64_t query = 0; query < sequence; ++query)
    for (int64_t key = query + 1; key < sequence; ++key) scores[query * sequence + key] += filter;
}

// Q, K and V of every position in one GEMM ([batch * sequence, 3 * hidden], bias added); then per
// batch and head the scores, their softmax and the weighted values, written into the head's columns.
void compute_attention(KernelContext& context) {
  const Tensor& input = context.input(0);
  const Tensor& weights = context.input(1);
  AttentionShape s = attention_shape(input.shape(), weights.shape(), context.attrs.get_int("num_heads"));
  int64_t positions = s.batch * s.sequence, width = 3 * s.hidden;
  if (positions == 0) return;
  std::vector<float> qkv(static_cast<size_t>(positions * width));
  const float* bias = context.input(2).f32().data();
  for (int64_t row = 0; row < positions; ++row)
    std::copy(bias, bias + width, qkv.begin() + row * width);
  if (s.input_hidden > 0)
    sgemm(false, false, positions, width, s.input_hidden, 1.0f, input.f32().data(), s.input_hidden,
          weights.f32().data(), width, 1.0f, qkv.data(), width);
  float scale = attention_scale(context.attrs, s.head_size);
  int64_t square = s.sequence * s.sequence;
  std::vector<float> scores(static_cast<size_t>(square));
  float* out = context.outputs[0].mutable_f32().data();
  const Tensor* added = context.has_input(kAttentionBias) ? &context.input(kAttentionBias) : nullptr;
  bool causal = context.attrs.get_int("unidirectional") == 1;
  auto filter = static_cast<float>(context.attrs.get_float("mask_filter_value"));
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h) {
      const float* q = qkv.data() + b * s.sequence * width + h * s.head_size;
      const float* k = q + s.hidden;
      const float* v = k + s.hidden;
      float beta = 0.0f;
      if (added) {  // the bias of this batch and head (each broadcast where its dimension is 1)
        const Shape& bias_shape = added->shape();
        int64_t slice = (bias_shape[0] == 1 ? 0 : b) * bias_shape[1] + (bias_shape[1] == 1 ? 0 : h);
        const float* source = added->f32().data() + slice * square;
        std::copy(source, source + square, scores.begin());
        beta = 1.0f;
      }
      sgemm(false, true, s.sequence, s.sequence, s.head_size, scale, q, width, k, width, beta, scores.data(),
            s.sequence);
      if (causal) add_causal_mask(scores.data(), s.sequence, filter);
      softmax_rows(scores.data(), s.sequence, s.sequence);
      sgemm(false, false, s.sequence, s.head_size, s.sequence, 1.0f, scores.data(), s.sequence, v, width, 0.0f,
            out + b * s.sequence * s.hidden + h * s.head_size, s.hidden);
    }
}

// The projection, both products per head and the softmax; the inputs and the output once each.
Cost attention_cost(const CostContext& context) {
  AttentionShape s = attention_shape(context.input(0).shape, context.input(1).shape, context.attrs.get_int("num_heads"));
  double positions = static_cast<double>(s.batch * s.sequence);
  double projection = 2.0 * positions * static_cast<double>(s.input_hidden) * 3.0 * static_cast<double>(s.hidden);
  double products = 4.0 * positions * static_cast<double>(s.sequence) * static_cast<double>(s.hidden);
  double softmax = 13.0 * positions * static_cast<double>(s.sequence) * static_cast<double>(s.heads);  // bias too
  return {projection + products + softmax, context.input_bytes() + context.output_bytes()};
}

// Standard ops computing the same: MatMul and Add for Q|K|V, one Reshape and Transpose to
// [3, batch, heads, sequence, head_size], a Gather each, then MatMul, Mul, Add of the attention
// bias and of the causal mask (a constant [1, 1, sequence, sequence]), Softmax (its last axis, which
// every opset's Softmax reads alike), MatMul, and the heads put back side by side.
void export_attention(const Node& node, OnnxExportNode& out) {
  std::optional<TensorType> weights = out.input_type(1);
  std::optional<TensorType> input = out.input_type(0);
  PET_CHECK(weights && input, "Attention export needs its input's and weights' types");
  int64_t heads = node.attrs.get_int("num_heads"), hidden = weights->shape[1] / 3, head_size = hidden / heads;
  auto step = [&](const std::string& op, std::vector<std::string> inputs, const Attributes& attrs = {}) {
    std::string name = out.fresh_name(node.name + "_" + op);
    out.add_node(op, inputs, {name}, attrs);
    return name;
  };
  std::string projected = step("MatMul", {out.input(0), out.input(1)});
  std::string biased = step("Add", {projected, out.input(2)});
  std::string split = step("Reshape", {biased, out.add_constant(Tensor::i64(Shape{5}, {0, 0, 3, heads, head_size}))});
  std::string stacked = step("Transpose", {split}, {{"perm", std::vector<int64_t>{2, 0, 3, 1, 4}}});
  auto part = [&](int64_t index) {
    return step("Gather", {stacked, out.add_constant(Tensor::scalar_i64(index))}, {{"axis", int64_t{0}}});
  };
  std::string q = part(0), k = part(1), v = part(2);
  std::string k_t = step("Transpose", {k}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  std::string scores = step("MatMul", {q, k_t});
  std::string scaled = step("Mul", {scores, out.add_constant(Tensor::scalar_f32(attention_scale(node.attrs, head_size)))});
  if (node.inputs.size() > kAttentionBias && node.inputs[kAttentionBias] != kNoValue)
    scaled = step("Add", {scaled, out.input(kAttentionBias)});
  if (node.attrs.get_int("unidirectional") == 1) {
    int64_t sequence = input->shape[1];
    Tensor causal(DType::f32, Shape{1, 1, sequence, sequence});
    add_causal_mask(causal.mutable_f32().data(), sequence, static_cast<float>(node.attrs.get_float("mask_filter_value")));
    scaled = step("Add", {scaled, out.add_constant(std::move(causal))});
  }
  std::string probabilities = step("Softmax", {scaled}, {{"axis", int64_t{3}}});
  std::string context = step("MatMul", {probabilities, v});
  std::string heads_last = step("Transpose", {context}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  out.add_node("Reshape", {heads_last, out.add_constant(Tensor::i64(Shape{3}, {0, 0, hidden}))}, {out.output(0)}, {});
}

}  // namespace

OpDef make_Attention() {
  OpDef def;
  def.name = "Attention";  // ONNX Runtime's contrib op; ONNX's own Attention (opset 23) is another op
  def.extension_domain = kOnnxRuntimeDomain;
  def.attrs = {attr_int("num_heads"), attr_float("scale", 0.0), attr_int("unidirectional", 0),
               attr_float("mask_filter_value", -10000.0)};
  def.min_inputs = 3;
  def.max_inputs = 6;
  // An int32 mask_index passes the element-type gate so that the shape rule, which computes in
  // float32 alone, says what to do instead of asking for a cast.
  def.extra_types = {DType::i32};
  def.traits.compute_heavy = true;
  def.infer = infer_attention;
  def.compute = compute_attention;
  def.cost = attention_cost;
  def.to_onnx = export_attention;
  return def;
}

}  // namespace pet::ops
