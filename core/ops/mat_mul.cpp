// MatMul: numpy matmul (1-D operands, broadcast batch dims), one sgemm per batch matrix.
#include <fmt/format.h>

#include <algorithm>

#include "core/ops/fused_activation.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/element_cast.h"
#include "core/gemm.h"
#include "core/ops/op_util.h"

namespace pet::ops {
namespace {

// The types MatMul's own kernels compute (float16 runs as f32; bfloat16 through f32's GEMM,
// with_bfloat16_through_float): with bf16, ONNX's list.
constexpr DTypeSet kMatMulDTypes = {DType::f32, DType::f64, DType::i32, DType::i64, DType::u32, DType::u64};

// Operand shapes as matrices: a 1-D A is a row [1, K], a 1-D B is a column [K, 1].
struct MatMulShapes {
  Shape a_batch, b_batch, batch;
  int64_t m = 0, k = 0, n = 0;
};

Shape leading(const Shape& shape, int drop) {
  return Shape(std::vector<int64_t>(shape.dims().begin(), shape.dims().end() - drop));
}

MatMulShapes matmul_shapes(const Shape& a, const Shape& b) {
  MatMulShapes s;
  s.m = a.rank() == 1 ? 1 : a[a.rank() - 2];
  s.k = a[a.rank() - 1];
  s.n = b.rank() == 1 ? 1 : b[b.rank() - 1];
  s.a_batch = a.rank() == 1 ? Shape{} : leading(a, 2);
  s.b_batch = b.rank() == 1 ? Shape{} : leading(b, 2);
  return s;
}

ShapeResult infer_matmul(const ShapeContext& context) {
  const TensorType& a = context.input(0);
  const TensorType& b = context.input(1);
  PET_REFUSE_UNLESS(context, a.dtype == b.dtype && kMatMulDTypes.contains(a.dtype),
                    fmt::format("expects two operands of one type among f32, f64, bf16, i32, i64, u32, u64, got {} "
                                "and {}",
                                a.to_string(), b.to_string()));
  PET_REFUSE_UNLESS(context, a.dtype == DType::f32 || fused_activation(context.attrs) == "none",
                    "a fused activation needs f32 operands, got " + a.to_string());
  PET_REFUSE_UNLESS(
      context, a.shape.rank() >= 1 && b.shape.rank() >= 1,
      fmt::format("operands must have rank >= 1, got {} and {}", a.shape.to_string(), b.shape.to_string()));
  MatMulShapes s = matmul_shapes(a.shape, b.shape);
  int64_t b_rows = b.shape.rank() == 1 ? b.shape[0] : b.shape[b.shape.rank() - 2];
  PET_REFUSE_UNLESS(context, s.k == b_rows,
                    fmt::format("inner dimensions differ: {} and {} ({} vs {})", a.shape.to_string(),
                                b.shape.to_string(), s.k, b_rows));
  auto batch = broadcast_shapes(s.a_batch, s.b_batch);
  PET_REFUSE_UNLESS(context, batch.has_value(),
                    fmt::format("cannot broadcast batch dims of {} and {}", a.shape.to_string(), b.shape.to_string()));
  std::vector<int64_t> dims = batch->dims();
  if (a.shape.rank() > 1) dims.push_back(s.m);
  if (b.shape.rank() > 1) dims.push_back(s.n);
  return {{a.dtype, Shape(dims)}};
}

// C = A x B for one [m, k] x [k, n] matrix pair of f64 or an integer type: f64 accumulates in
// double, integers in uint64 so that they wrap (bf16 goes through f32's GEMM).
template <DType D>
void matmul_plain(const storage_t<D>* a, const storage_t<D>* b, storage_t<D>* c, const MatMulShapes& s) {
  using Sum = std::conditional_t<is_float_dtype(D), compute_t<D>, uint64_t>;
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      Sum total = 0;
      for (int64_t p = 0; p < s.k; ++p)
        total += static_cast<Sum>(widen<D>(a[i * s.k + p])) * static_cast<Sum>(widen<D>(b[p * s.n + j]));
      c[i * s.n + j] = narrow<D>(total);
    }
}

// The batched matmul of a type other than f32, one matrix pair at a time.
template <DType D>
void compute_matmul_plain(KernelContext& context) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  MatMulShapes s = matmul_shapes(a.shape(), b.shape());
  Shape batch = *broadcast_shapes(s.a_batch, s.b_batch);
  BroadcastIndex a_index(s.a_batch, batch), b_index(s.b_batch, batch);
  const storage_t<D>* a_data = a.view<D>().data();
  const storage_t<D>* b_data = b.view<D>().data();
  storage_t<D>* c_data = context.outputs[0].mutable_view<D>().data();
  for (int64_t i = 0, count = batch.numel(); i < count; ++i) {
    int64_t a_offset = a_index.offset(i);
    int64_t b_offset = b_index.offset(i);
    matmul_plain<D>(a_data + a_offset * s.m * s.k, b_data + b_offset * s.k * s.n, c_data + i * s.m * s.n, s);
  }
}

void compute_matmul_f32(KernelContext& context) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  MatMulShapes s = matmul_shapes(a.shape(), b.shape());
  Shape batch = *broadcast_shapes(s.a_batch, s.b_batch);
  const float* a_data = a.f32().data();
  const float* b_data = b.f32().data();
  float* c_data = context.outputs[0].mutable_f32().data();
  int64_t count = batch.numel();
  if (s.k == 0) return;  // empty sums: the zero-filled output is the answer
  // A shared B with a full batch of A: one tall GEMM is much faster than many small ones.
  if (s.b_batch.numel() == 1 && s.a_batch == batch) {
    sgemm(false, false, count * s.m, s.n, s.k, 1.0f, a_data, s.k, b_data, s.n, 0.0f, c_data, s.n);
    return;
  }
  BroadcastIndex a_index(s.a_batch, batch), b_index(s.b_batch, batch);
  for (int64_t i = 0; i < count; ++i) {
    int64_t a_offset = a_index.offset(i);
    int64_t b_offset = b_index.offset(i);
    sgemm(false, false, s.m, s.n, s.k, 1.0f, a_data + a_offset * s.m * s.k, s.k, b_data + b_offset * s.k * s.n, s.n,
          0.0f, c_data + i * s.m * s.n, s.n);
  }
}

void compute_matmul(KernelContext& context) {
  if (context.input(0).dtype() != DType::f32) {
    visit_dtype(context.input(0).dtype(), [&]<DType D>() {
      if constexpr (kMatMulDTypes.contains(D)) compute_matmul_plain<D>(context);
    });
    return;
  }
  compute_matmul_f32(context);
}

Cost matmul_cost(const CostContext& context) {
  MatMulShapes s = matmul_shapes(context.input(0).shape, context.input(1).shape);
  double products = static_cast<double>(context.outputs[0].shape.numel()) * static_cast<double>(s.k);
  return {2.0 * products, context.input_bytes() + context.output_bytes()};
}

}  // namespace

namespace {

// Operand ranks normalized to [batch..., rows, cols]; 1-D operands gain the missing axis.
struct MatMulAxes {
  int a_rank, b_rank, out_rank;
  int64_t depth;
};

MatMulAxes matmul_axes(const Shape& a, const Shape& b, const Shape& out) {
  return {a.rank(), b.rank(), out.rank(), a[a.rank() - 1]};
}

uint64_t matmul_point(const PointContext& context) {
  const Shape& a = context.input(0).shape;
  const Shape& b = context.input(1).shape;
  MatMulAxes axes = matmul_axes(a, b, context.output.shape);
  int out_rank = axes.out_rank;
  // Output coordinates: batch..., then m (when a is not 1-D), then n (when b is not 1-D).
  int64_t m = axes.a_rank >= 2 ? context.index[out_rank - (axes.b_rank >= 2 ? 2 : 1)] : 0;
  int64_t n = axes.b_rank >= 2 ? context.index[out_rank - 1] : 0;
  int batch_rank = out_rank - (axes.a_rank >= 2) - (axes.b_rank >= 2);
  int64_t a_index[kMaxRank], b_index[kMaxRank];
  for (int d = 0; d < axes.a_rank - 2; ++d) {
    int od = batch_rank - (axes.a_rank - 2) + d;
    a_index[d] = a[d] == 1 ? 0 : context.index[od];
  }
  for (int d = 0; d < axes.b_rank - 2; ++d) {
    int od = batch_rank - (axes.b_rank - 2) + d;
    b_index[d] = b[d] == 1 ? 0 : context.index[od];
  }
  // The depth axis: a's last, b's second to last (each the only one of a 1-D operand).
  int a_depth_axis = axes.a_rank - 1, b_depth_axis = axes.b_rank >= 2 ? axes.b_rank - 2 : 0;
  if (axes.a_rank >= 2) a_index[axes.a_rank - 2] = m;
  if (axes.b_rank >= 2) b_index[axes.b_rank - 1] = n;
  // The depth read as runs of a's row and b's column, in chunks that stay on the stack.
  constexpr int64_t kChunk = 128;
  uint64_t a_run[kChunk], b_run[kChunk];
  uint64_t total = 0;
  for (int64_t k = 0; k < axes.depth; k += kChunk) {
    int64_t count = std::min(kChunk, axes.depth - k);
    a_index[a_depth_axis] = k;
    b_index[b_depth_axis] = k;
    context.pull_run(0, a_index, a_depth_axis, count, a_run);
    context.pull_run(1, b_index, b_depth_axis, count, b_run);
    total = field::add(total, field::dot(a_run, b_run, count));
  }
  return total;
}

// Batch cuts from both operands (broadcast), row cuts from a, column cuts from b.
BoxGrid matmul_boxes(const BoxContext& context) {
  const Shape& a = context.input(0).shape;
  const Shape& b = context.input(1).shape;
  const Shape& out = context.output.shape;
  int batch_rank = out.rank() - (a.rank() >= 2) - (b.rank() >= 2);
  std::vector<std::vector<int64_t>> points(static_cast<size_t>(out.rank()));
  auto add_batch = [&](const Shape& shape, const BoxGrid& grid) {
    for (int d = 0; d < shape.rank() - 2; ++d) {
      int od = batch_rank - (shape.rank() - 2) + d;
      if (shape[d] == out[od])
        points[static_cast<size_t>(od)].insert(points[static_cast<size_t>(od)].end(), grid.cuts(d).begin(), grid.cuts(d).end());
    }
  };
  add_batch(a, context.grid(0));
  add_batch(b, context.grid(1));
  if (a.rank() >= 2) points[static_cast<size_t>(batch_rank)] = context.grid(0).cuts(a.rank() - 2);
  if (b.rank() >= 2) points[static_cast<size_t>(out.rank() - 1)] = context.grid(1).cuts(b.rank() - 1);
  std::vector<std::vector<int64_t>> cuts;
  for (int d = 0; d < out.rank(); ++d) cuts.push_back(normalize_cuts(points[static_cast<size_t>(d)], out[d]));
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_MatMul() {
  OpDef def;
  def.name = "MatMul";
  def.extra_types = kMatMulDTypes;
  def.onnx_ops = {"MatMul"};
  def.min_inputs = def.max_inputs = 2;
  def.traits.linearity = Linearity::Multilinear;
  def.traits.linear_inputs = {0, 1};
  def.traits.compute_heavy = true;
  def.infer = infer_matmul;
  def.compute = compute_matmul;
  def.cost = matmul_cost;
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  def.eval_point = matmul_point;
  def.propagate_boxes = matmul_boxes;
  // activation="relu" after finalize; bfloat16 through the f32 kernel, activation included
  return with_bfloat16_through_float(with_fused_activation(std::move(def)));
}

}  // namespace pet::ops
