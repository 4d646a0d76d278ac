// GemmConfig from a MatMul or Gemm node and its step's epilogue: numpy's matmul batching and
// ONNX Gemm's transposes mapped onto cuBLASLt's column-major layouts.
#include "kernels/gpu/executor/gemm_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

namespace pet::gpu {
namespace {

constexpr const char* kRelu = "relu";

// The node's operands as matrices: A is [rows, K] (or [K, rows] when transposed), B [K, N] (or
// [N, K]), the batch in `batch` with each side's stride in elements (0: shared by every batch).
struct RowMajorProduct {
  int64_t rows = 0, k = 0, columns = 0;
  bool transpose_a = false, transpose_b = false;
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_d = 0;
};

std::vector<int64_t> batch_dims(const Shape& shape) {
  if (shape.rank() <= 2) return {};
  return {shape.dims().begin(), shape.dims().end() - 2};
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t result = 1;
  for (int64_t extent : dims) result *= extent;
  return result;
}

std::vector<int64_t> without_leading_ones(std::vector<int64_t> dims) {
  size_t ones = 0;
  while (ones < dims.size() && dims[ones] == 1) ++ones;
  return {dims.begin() + static_cast<int64_t>(ones), dims.end()};
}

// `dims` with ones in front up to `rank`, numpy's alignment of batch dims from the right.
std::vector<int64_t> ones_in_front(const std::vector<int64_t>& dims, size_t rank) {
  std::vector<int64_t> padded(rank - dims.size(), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  return padded;
}

// Elements between consecutive indices of each dim of a batch of `matrix`-element matrices; 0
// where the dim is 1 (broadcast).
std::vector<int64_t> batch_strides(const std::vector<int64_t>& dims, int64_t matrix) {
  std::vector<int64_t> strides(dims.size(), 0);
  int64_t step = matrix;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = dims[d] == 1 ? 0 : step;
    step *= dims[d];
  }
  return strides;
}

// Batch dims that broadcast partially: the trailing run of equal extents is the strided batch, the
// dims before it are enumerated (last fastest), one call each; nullopt beyond kMaxGemmCalls.
std::optional<std::vector<GemmCallOffsets>> outer_calls(const std::vector<int64_t>& a_batch,
                                                        const std::vector<int64_t>& b_batch, RowMajorProduct& p,
                                                        int64_t m) {
  size_t rank = std::max(a_batch.size(), b_batch.size());
  std::vector<int64_t> a = ones_in_front(a_batch, rank), b = ones_in_front(b_batch, rank), d(rank);
  for (size_t i = 0; i < rank; ++i) d[i] = std::max(a[i], b[i]);
  size_t split = rank;
  while (split > 0 && a[split - 1] == b[split - 1]) --split;
  std::vector<int64_t> outer(d.begin(), d.begin() + static_cast<int64_t>(split));
  if (product(outer) > kMaxGemmCalls) return std::nullopt;
  std::vector<int64_t> a_strides = batch_strides(a, m * p.k), b_strides = batch_strides(b, p.k * p.columns),
                       d_strides = batch_strides(d, m * p.columns);
  p.batch = product({d.begin() + static_cast<int64_t>(split), d.end()});
  p.stride_a = m * p.k;
  p.stride_b = p.k * p.columns;
  std::vector<GemmCallOffsets> calls;
  std::vector<int64_t> index(split, 0);
  for (int64_t call = 0; call < product(outer); ++call) {
    int64_t rest = call;
    for (size_t i = split; i-- > 0;) {
      index[i] = rest % outer[i];
      rest /= outer[i];
    }
    GemmCallOffsets offsets;
    for (size_t i = 0; i < split; ++i) {  // the node's A is cuBLASLt's B and its B cuBLASLt's A
      offsets.b += index[i] * a_strides[i];
      offsets.a += index[i] * b_strides[i];
      offsets.d += index[i] * d_strides[i];
    }
    calls.push_back(offsets);
  }
  return calls;
}

std::optional<RowMajorProduct> matmul_product(const Shape& a, const Shape& b, std::string& refusal,
                                              std::vector<GemmCallOffsets>& calls) {
  RowMajorProduct p;
  int64_t m = a.rank() == 1 ? 1 : a[a.rank() - 2];
  p.k = a[a.rank() - 1];
  p.columns = b.rank() == 1 ? 1 : b[b.rank() - 1];
  std::vector<int64_t> a_batch = batch_dims(a), b_batch = batch_dims(b);
  int64_t a_count = product(a_batch), b_count = product(b_batch);
  if (b_count == 1) {  // B is one matrix: A's batch folds into its rows
    p.rows = a_count * m;
    return p;
  }
  p.rows = m;
  p.batch = b_count;
  p.stride_b = p.k * p.columns;
  p.stride_d = m * p.columns;
  if (a_count == 1) return p;
  if (without_leading_ones(a_batch) == without_leading_ones(b_batch)) {
    p.stride_a = m * p.k;
    return p;
  }
  std::optional<std::vector<GemmCallOffsets>> outer = outer_calls(a_batch, b_batch, p, m);
  if (!outer) {
    refusal = fmt::format("its batch dims [{}] and [{}] broadcast partially over more than {} strided batches",
                          fmt::join(a_batch, ","), fmt::join(b_batch, ","), kMaxGemmCalls);
    return std::nullopt;
  }
  calls = std::move(*outer);
  return p;
}

RowMajorProduct gemm_product(const Node& gemm, const Shape& a, const Shape& b) {
  RowMajorProduct p;
  p.transpose_a = gemm.attrs.get_int("transA") != 0;
  p.transpose_b = gemm.attrs.get_int("transB") != 0;
  p.rows = p.transpose_a ? a[1] : a[0];
  p.k = p.transpose_a ? a[0] : a[1];
  p.columns = p.transpose_b ? b[0] : b[1];
  return p;
}

bool fits_int(int64_t value) { return value <= std::numeric_limits<int>::max(); }

// The column-major layouts of the swapped product D^T = op(B)^T op(A)^T.
void set_layouts(const RowMajorProduct& p, GemmConfig& config) {
  auto u = [](int64_t value) { return static_cast<uint64_t>(value); };
  config.transpose_a = p.transpose_b;
  config.layout_a = p.transpose_b ? LtLayout{u(p.k), u(p.columns), p.k, p.stride_b}
                                  : LtLayout{u(p.columns), u(p.k), p.columns, p.stride_b};
  config.transpose_b = p.transpose_a;
  config.layout_b =
      p.transpose_a ? LtLayout{u(p.rows), u(p.k), p.rows, p.stride_a} : LtLayout{u(p.k), u(p.rows), p.k, p.stride_a};
  config.layout_d = LtLayout{u(p.columns), u(p.rows), p.columns, p.stride_d};
  config.m = p.columns;
  config.n = p.rows;
  config.k = p.k;
  config.batch = static_cast<int>(p.batch);
}

// Whether `shape` is one value per column of a [rows, columns] product: [columns] or [1, columns].
bool per_column(const Shape& shape, int64_t columns) {
  return shape == Shape{columns} || shape == Shape{1, columns};
}

// Empty when Gemm's C can be read; sets c and c_expanded, or (a computed C of one value per column
// with beta 1) bias: cuBLASLt's BIAS epilogue adds it to every row, unscaled.
std::string set_gemm_c(const Graph& graph, const Node& gemm, const RowMajorProduct& p, const Step& step,
                       GemmConfig& config) {
  if (gemm.inputs.size() < 3 || gemm.inputs[2] == kNoValue || config.beta == 0.0f) return "";
  const Value& c = graph.value(gemm.inputs[2]);
  if (c.constant) {
    config.c = gemm.inputs[2];
    config.c_expanded = true;
    return "";
  }
  if (c.type.shape == Shape{p.rows, p.columns}) {
    config.c = gemm.inputs[2];
    return "";
  }
  if (per_column(c.type.shape, p.columns) && config.beta == 1.0f && step.epilogue.bias == kNoValue) {
    config.bias = gemm.inputs[2];
    return "";
  }
  return fmt::format(
      "its C '{}' of shape {} is a computed value that broadcasts to [{},{}] otherwise than one value per column "
      "added once, and cuBLASLt reads C as a full matrix",
      c.name, c.type.shape.to_string(), p.rows, p.columns);
}

std::string epilogue_refusal(const Graph& graph, const Step& step, int64_t columns) {
  if (step.epilogue.activation != kNoActivation && step.epilogue.activation != kRelu)
    return fmt::format("its activation '{}' is none cuBLASLt's epilogues apply", step.epilogue.activation);
  if (step.epilogue.bias == kNoValue) return "";
  const Value& bias = graph.value(step.epilogue.bias);
  int64_t count = bias.type.shape.numel();
  if (bias.constant && bias.type.dtype == DType::f32 && (count == columns || count == 1)) return "";
  return fmt::format("its bias '{}' of type {} is no weight of {} per-column values or one", bias.name,
                     bias.type.to_string(), columns);
}

}  // namespace

std::string GemmConfig::key() const {
  auto layout = [](const LtLayout& l) { return fmt::format("{}x{}/{}/{}", l.rows, l.cols, l.ld, l.batch_stride); };
  std::string text = fmt::format("m {} n {} k {} batch {} a {}{} b {}{} d {} c {} bias {} relu {}", m, n, k, batch,
                                 layout(layout_a), transpose_a ? "T" : "N", layout(layout_b), transpose_b ? "T" : "N",
                                 layout(layout_d), c != kNoValue, bias != kNoValue, relu);
  if (!calls.empty()) {
    text += fmt::format(" calls {}:", calls.size());
    for (const GemmCallOffsets& call : calls) text += fmt::format(" {}/{}/{}", call.a, call.b, call.d);
  }
  return text;
}

GemmPreparation prepare_gemm(const Graph& graph, const Step& step) {
  const Node& node = graph.node(step.nodes.front());
  const Shape& a = graph.value(node.inputs[0]).type.shape;
  const Shape& b = graph.value(node.inputs[1]).type.shape;
  std::string refusal;
  std::vector<GemmCallOffsets> calls;
  std::optional<RowMajorProduct> product = node.op() == "Gemm" ? std::optional<RowMajorProduct>(gemm_product(node, a, b))
                                                               : matmul_product(a, b, refusal, calls);
  if (!product) return {std::nullopt, refusal};
  if (!fits_int(product->batch)) return {std::nullopt, "its batch count exceeds cuBLASLt's int"};
  GemmConfig config;
  config.a = node.inputs[1];
  config.b = node.inputs[0];
  config.d = step.outputs.at(0);
  if (node.op() == "Gemm") {
    config.alpha = static_cast<float>(node.attrs.get_float("alpha"));
    config.beta = static_cast<float>(node.attrs.get_float("beta"));
  }
  if (std::string why = set_gemm_c(graph, node, *product, step, config); !why.empty()) return {std::nullopt, why};
  if (step.epilogue.residual != kNoValue) {  // a MatMul's residual: C in D's layout, added once
    config.c = step.epilogue.residual;
    config.beta = 1.0f;
  }
  if (config.c == kNoValue) config.beta = 0.0f;
  if (std::string why = epilogue_refusal(graph, step, product->columns); !why.empty()) return {std::nullopt, why};
  if (config.bias == kNoValue) config.bias = step.epilogue.bias;
  config.alpha *= step.epilogue.scale;
  config.relu = step.epilogue.activation == kRelu;
  set_layouts(*product, config);
  config.calls = std::move(calls);
  return {config, ""};
}

namespace {

// A view as a batch of matrices: rows x cols with their strides, and its batch dims (right-aligned
// to `batch`, the output's) collapsed into one count and stride; nullopt where they do not collapse.
struct StridedMatrices {
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
  int64_t batch_stride = 0;
};

std::optional<StridedMatrices> strided_matrices(const StridedView& view, const std::vector<int64_t>& batch) {
  size_t rank = view.dims.size();
  if (rank < 2) return std::nullopt;
  StridedMatrices m{view.dims[rank - 2], view.dims[rank - 1], view.strides[rank - 2], view.strides[rank - 1], 0};
  // Each output batch dim's stride in this view (0 where the view has the dim as 1 or lacks it).
  std::vector<int64_t> strides(batch.size(), 0);
  size_t view_batch = rank - 2;
  for (size_t i = 0; i < view_batch; ++i) {
    size_t at = batch.size() - view_batch + i;
    if (view.dims[i] != 1) strides[at] = view.strides[i];
  }
  // Collapsible: going outwards over the batch dims of extent > 1, each stride is the next inner
  // one times that inner dim's extent.
  int64_t inner_stride = -1, inner_extent = 1;
  for (size_t i = batch.size(); i-- > 0;) {
    if (batch[i] == 1) continue;
    if (inner_stride < 0) {
      m.batch_stride = strides[i];
    } else if (strides[i] != inner_stride * inner_extent) {
      return std::nullopt;
    }
    inner_stride = strides[i];
    inner_extent = batch[i];
  }
  return m;
}

// The cuBLASLt layout of a row-major product operand read at strides: column-major with the unit
// stride's other one as ld, transposed where the unit stride is the row's.
std::optional<std::pair<LtLayout, bool>> lt_layout(const StridedMatrices& m) {
  auto u = [](int64_t value) { return static_cast<uint64_t>(value); };
  if (m.col_stride == 1 && m.row_stride >= m.cols)
    return std::pair{LtLayout{u(m.cols), u(m.rows), m.row_stride, m.batch_stride}, false};
  if (m.row_stride == 1 && m.col_stride >= m.rows)
    return std::pair{LtLayout{u(m.rows), u(m.cols), m.col_stride, m.batch_stride}, true};
  return std::nullopt;
}

std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

}  // namespace

StridedView dense_view(const Graph& graph, ValueId value) {
  const std::vector<int64_t>& dims = graph.value(value).type.shape.dims();
  return {value, dims, dense_strides(dims)};
}

StridedView transposed_view(const Graph& graph, ValueId source, const std::vector<int64_t>& perm) {
  StridedView dense = dense_view(graph, source);
  StridedView view{source, {}, {}};
  for (int64_t axis : perm) {
    view.dims.push_back(dense.dims[static_cast<size_t>(axis)]);
    view.strides.push_back(dense.strides[static_cast<size_t>(axis)]);
  }
  return view;
}

std::optional<GemmConfig> strided_matmul_config(const GemmConfig& prepared, const StridedView& a, const StridedView& b,
                                                const StridedView& d) {
  if (!prepared.calls.empty() || a.dims.size() < 2 || b.dims.size() < 2 || d.dims.size() < 2) return std::nullopt;
  std::vector<int64_t> batch(d.dims.begin(), d.dims.end() - 2);
  std::optional<StridedMatrices> ma = strided_matrices(a, batch), mb = strided_matrices(b, batch),
                                  md = strided_matrices(d, batch);
  if (!ma || !mb || !md || md->col_stride != 1) return std::nullopt;
  // cuBLASLt computes D^T = B^T A^T: its A is the node's B, its B the node's A.
  std::optional<std::pair<LtLayout, bool>> la = lt_layout(*mb), lb = lt_layout(*ma), ld = lt_layout(*md);
  if (!la || !lb || !ld) return std::nullopt;
  GemmConfig config = prepared;
  config.a = b.value;
  config.b = a.value;
  config.d = d.value;
  std::tie(config.layout_a, config.transpose_a) = *la;
  std::tie(config.layout_b, config.transpose_b) = *lb;
  config.layout_d = ld->first;
  config.m = md->cols;
  config.n = md->rows;
  config.k = ma->cols;
  int64_t count = product(batch);
  if (!fits_int(count)) return std::nullopt;
  config.batch = static_cast<int>(count);
  return config;
}

}  // namespace pet::gpu
