// Gemm: Y = alpha * op(A) * op(B) + beta * C, with C broadcast to [M, N].
#include "core/ops/fused_activation.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/gemm.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/op_util.h"

namespace pet::ops {
namespace {

struct GemmShapes {
  int64_t m, k, n;
};

GemmShapes gemm_shapes(const Shape& a, const Shape& b, const Attributes& attrs) {
  bool trans_a = attrs.get_int("transA") != 0, trans_b = attrs.get_int("transB") != 0;
  return {trans_a ? a[1] : a[0], trans_a ? a[0] : a[1], trans_b ? b[0] : b[1]};
}

ShapeResult infer_gemm(const ShapeContext& context) {
  const TensorType& a = context.input(0);
  const TensorType& b = context.input(1);
  PET_REFUSE_UNLESS(context, a.dtype == DType::f32 && b.dtype == DType::f32,
                    fmt::format("expects float32 operands, got {} and {}", a.to_string(), b.to_string()));
  PET_REFUSE_UNLESS(context, a.shape.rank() == 2 && b.shape.rank() == 2,
                    fmt::format("A and B must be matrices, got {} and {}", a.shape.to_string(), b.shape.to_string()));
  GemmShapes s = gemm_shapes(a.shape, b.shape, context.attrs);
  int64_t b_rows = context.attrs.get_int("transB") != 0 ? b.shape[1] : b.shape[0];
  PET_REFUSE_UNLESS(context, s.k == b_rows,
                    fmt::format("inner dimensions differ: op(A) is {}x{} and op(B) is {}x{}", s.m, s.k, b_rows, s.n));
  Shape out{s.m, s.n};
  if (context.has_input(2)) {
    const TensorType& c = context.input(2);
    PET_REFUSE_UNLESS(context, c.dtype == DType::f32, "expects a float32 C, got " + c.to_string());
    auto merged = broadcast_shapes(c.shape, out);
    PET_REFUSE_UNLESS(context, merged && *merged == out,
                      fmt::format("C of shape {} does not broadcast to {}", c.shape.to_string(), out.to_string()));
  }
  return {{DType::f32, out}};
}

void compute_gemm(KernelContext& context) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  Tensor& y = context.outputs[0];
  GemmShapes s = gemm_shapes(a.shape(), b.shape(), context.attrs);
  auto out = y.mutable_f32();
  bool has_c = context.has_input(2);
  if (has_c) {
    const Tensor& c = context.input(2);
    auto beta = static_cast<float>(context.attrs.get_float("beta"));
    BroadcastIndex c_index(c.shape(), y.shape());
    BroadcastIndex::Cursor at = c_index.cursor();
    auto values = c.f32();
    for (size_t i = 0; i < out.size(); ++i) out[i] = beta * values[at.next()];
  }
  if (s.k == 0) return;
  sgemm(context.attrs.get_int("transA") != 0, context.attrs.get_int("transB") != 0, s.m, s.n, s.k,
        static_cast<float>(context.attrs.get_float("alpha")), a.f32().data(), a.shape()[1], b.f32().data(),
        b.shape()[1], has_c ? 1.0f : 0.0f, out.data(), s.n);
}

Cost gemm_cost(const CostContext& context) {
  const Shape& a = context.input(0).shape;
  double k = static_cast<double>(a.numel()) / static_cast<double>(std::max<int64_t>(1, context.outputs[0].shape[0]));
  return {2.0 * static_cast<double>(context.outputs[0].shape.numel()) * k,
          context.input_bytes() + context.output_bytes()};
}

// Before opset 11 C is required: a missing C is exported as a zero scalar.
void export_gemm(const Node& node, OnnxExportNode& out) {
  std::vector<std::string> inputs = {out.input(0), out.input(1)};
  if (node.inputs.size() > 2 && node.inputs[2] != kNoValue)
    inputs.push_back(out.input(2));
  else if (out.opset() < 11)
    inputs.push_back(out.add_constant(Tensor::scalar_f32(0.0f)));
  out.add_node("Gemm", inputs, {out.output(0)}, node.attrs);
}

}  // namespace

namespace {

uint64_t gemm_point(const PointContext& context) {
  bool trans_a = context.attrs.get_int("transA") != 0, trans_b = context.attrs.get_int("transB") != 0;
  const Shape& a = context.input(0).shape;
  int64_t depth = trans_a ? a[0] : a[1];
  int64_t m = context.index[0], n = context.index[1];
  uint64_t total = 0;
  for (int64_t k = 0; k < depth; ++k) {
    int64_t a_index[2] = {trans_a ? k : m, trans_a ? m : k};
    int64_t b_index[2] = {trans_b ? n : k, trans_b ? k : n};
    total = field::add(total, field::mul(context.pull(0, a_index), context.pull(1, b_index)));
  }
  total = field::mul(total, field::from_float(context.attrs.get_float("alpha")));
  if (context.has_input(2)) {
    const Shape& c = context.input(2).shape;
    int64_t c_index[2];
    int offset = 2 - c.rank();
    for (int d = 0; d < c.rank(); ++d) c_index[d] = c[d] == 1 ? 0 : context.index[d + offset];
    total = field::add(total, field::mul(context.pull(2, c_index), field::from_float(context.attrs.get_float("beta"))));
  }
  return total;
}

BoxGrid gemm_boxes(const BoxContext& context) {
  bool trans_a = context.attrs.get_int("transA") != 0, trans_b = context.attrs.get_int("transB") != 0;
  const Shape& out = context.output.shape;
  std::vector<int64_t> rows = context.grid(0).cuts(trans_a ? 1 : 0);
  std::vector<int64_t> cols = context.grid(1).cuts(trans_b ? 0 : 1);
  if (context.has_input(2)) {
    const Shape& c = context.input(2).shape;
    int offset = 2 - c.rank();
    for (int d = 0; d < c.rank(); ++d)
      if (c[d] == out[d + offset]) {
        auto& target = d + offset == 0 ? rows : cols;
        target.insert(target.end(), context.grid(2).cuts(d).begin(), context.grid(2).cuts(d).end());
      }
  }
  return BoxGrid({normalize_cuts(rows, out[0]), normalize_cuts(cols, out[1])});
}

}  // namespace

OpDef make_Gemm() {
  OpDef def;
  def.name = "Gemm";
  def.onnx_ops = {"Gemm"};
  def.attrs = {attr_float("alpha", 1.0), attr_float("beta", 1.0), attr_int("transA", 0), attr_int("transB", 0)};
  def.min_inputs = 2;
  def.max_inputs = 3;
  // Linear in A and in B separately; affine, not linear, when C (input 2) is present.
  def.traits.linearity = Linearity::Multilinear;
  def.traits.linear_inputs = {0, 1};
  def.traits.compute_heavy = true;
  def.infer = infer_gemm;
  def.compute = compute_gemm;
  def.cost = gemm_cost;
  def.from_onnx = import_same_name;
  def.to_onnx = export_gemm;
  def.eval_point = gemm_point;
  def.propagate_boxes = gemm_boxes;
  // activation="relu" after finalize; bfloat16 through the f32 kernel, activation included
  return with_bfloat16_through_float(with_fused_activation(std::move(def)));
}

}  // namespace pet::ops
