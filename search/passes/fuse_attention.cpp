// Finds written-out self-attentions, proves their layout chains by moving indices through them,
// and swaps in ONNX Runtime's Attention where the target runs it and the cost model prices it cheaper.
#include "search/passes/fuse_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "core/executor.h"
#include "core/ops/fused_activation.h"
#include "core/ops/op_util.h"
#include "core/ops/split.h"
#include "core/structural_hash.h"
#include "search/cost/cost_model.h"
#include "search/passes/constant_source.h"
#include "search/passes/eliminate_dead_nodes.h"
#include "verifier/element_domain.h"

namespace pet {
namespace {

// float32 holds every integer up to 2^24 exactly, so indices below it move through a chain unchanged.
constexpr int64_t kExactIndices = int64_t{1} << 24;

const std::vector<int64_t> kSwapFirstAxes{1, 0, 2};

bool read_once(const Graph& graph, const Consumers& users, ValueId value) {
  return users[static_cast<size_t>(value)].size() == 1 && !graph.is_output(value);
}

const Node* producer_of(const Graph& graph, ValueId value) {
  NodeId producer = graph.value(value).producer;
  return producer < 0 ? nullptr : &graph.node(producer);
}

bool is_layout_step(const Node& node) {
  return node.def->traits.layout_only && node.inputs.size() == 1 && node.outputs.size() == 1 &&
         ops::fused_activation(node.attrs) == "none";
}

// Layout steps in the order they run, and the value the first of them reads.
struct Chain {
  std::vector<NodeId> nodes;
  ValueId source = kNoValue;
};

// The layout steps above `value`, each output read by the next step alone.
Chain chain_above(const Graph& graph, const Consumers& users, ValueId value) {
  Chain chain{{}, value};
  for (const Node* step = producer_of(graph, value); step && is_layout_step(*step) && read_once(graph, users, chain.source);
       step = producer_of(graph, chain.source)) {
    chain.nodes.insert(chain.nodes.begin(), graph.value(chain.source).producer);
    chain.source = step->inputs[0];
  }
  return chain;
}

// The layout steps below `value` up to the first value of shape `goal` or `flat_goal` (chain.source:
// that value).
std::optional<Chain> chain_below(const Graph& graph, const Consumers& users, ValueId value, const Shape& goal,
                                 const Shape& flat_goal) {
  Chain chain{{}, value};
  auto reached = [&] { return graph.value(chain.source).type.shape == goal || graph.value(chain.source).type.shape == flat_goal; };
  while (!reached()) {
    if (!read_once(graph, users, chain.source)) return std::nullopt;
    NodeId next = users[static_cast<size_t>(chain.source)][0];
    if (!is_layout_step(graph.node(next))) return std::nullopt;
    chain.nodes.push_back(next);
    chain.source = graph.node(next).outputs[0];
  }
  return chain;
}

// The chain's steps run on `tensor` by their own kernels.
Tensor run_chain(const Graph& graph, const std::vector<NodeId>& chain, Tensor tensor) {
  for (NodeId id : chain) {
    const Node& node = graph.node(id);
    std::vector<Tensor> out = execute_node(node, {&tensor}, {graph.value(node.outputs[0]).type});
    tensor = std::move(out.at(0));
  }
  return tensor;
}

// The tokens [B,S,H] (or [S,B,H]) and their heads [B,N,S,d] (or [B*N,S,d]): the dimensions a
// site's chains move between.
struct HeadShape {
  int64_t batch, sequence, heads, head_size;
  bool sequence_first = false;  // tokens [S,B,H], as torch's MultiheadAttention holds them
  bool batched_heads = false;   // heads [B*N,S,d], as torch's MultiheadAttention holds them
  int64_t hidden() const { return heads * head_size; }
  Shape tokens() const {
    return sequence_first ? Shape{sequence, batch, hidden()} : Shape{batch, sequence, hidden()};
  }
  Shape flat_tokens() const { return Shape{batch * sequence, hidden()}; }  // the tokens' rows, in their order
  // [B,N,S,d], or [B,N,d,S] for the transposed keys; [B*N,S,d] or [B*N,d,S] where batched.
  Shape split(bool transposed) const {
    int64_t outer = transposed ? head_size : sequence, inner = transposed ? sequence : head_size;
    return batched_heads ? Shape{batch * heads, outer, inner} : Shape{batch, heads, outer, inner};
  }
  Shape scores() const { return batched_heads ? Shape{batch * heads, sequence, sequence} : Shape{batch, heads, sequence, sequence}; }
};

// Each element's index in [B,S,width] (width H unless given), laid out in the tokens' order
// ([B,S,width] or [S,B,width]).
Tensor token_indices(const HeadShape& s, int64_t width = 0) {
  if (width == 0) width = s.hidden();
  Shape tokens = s.tokens();
  Tensor out(DType::f32, Shape{tokens[0], tokens[1], width});
  auto values = out.mutable_f32();
  int64_t at = 0;
  for (int64_t outer = 0; outer < (s.sequence_first ? s.sequence : s.batch); ++outer)
    for (int64_t inner = 0; inner < (s.sequence_first ? s.batch : s.sequence); ++inner)
      for (int64_t lane = 0; lane < width; ++lane) {
        int64_t b = s.sequence_first ? inner : outer, token = s.sequence_first ? outer : inner;
        values[static_cast<size_t>(at++)] = static_cast<float>((b * s.sequence + token) * width + lane);
      }
  return out;
}

// Each element's index in [B,S,H], laid out as its heads [B,N,S,d] (or [B,N,d,S], or either with
// B and N as one axis) hold it.
Tensor token_indices_as_heads(const HeadShape& s, bool transposed) {
  Tensor out(DType::f32, s.split(transposed));
  auto values = out.mutable_f32();
  int64_t at = 0;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t n = 0; n < s.heads; ++n)
      for (int64_t outer = 0; outer < (transposed ? s.head_size : s.sequence); ++outer)
        for (int64_t inner = 0; inner < (transposed ? s.sequence : s.head_size); ++inner) {
          int64_t token = transposed ? inner : outer, lane = transposed ? outer : inner;
          values[static_cast<size_t>(at++)] = static_cast<float>((b * s.sequence + token) * s.hidden() + n * s.head_size + lane);
        }
  return out;
}

// Whether the chain takes the tokens to their heads (or, `merges`, the heads back to the tokens, or
// to their rows [B*S,H]).
bool chain_splits_heads(const Graph& graph, const Chain& chain, const HeadShape& s, bool transposed, bool merges) {
  if (s.tokens().numel() >= kExactIndices) return false;
  Tensor heads = token_indices_as_heads(s, transposed);
  Tensor tokens = token_indices(s);
  Tensor moved = merges ? run_chain(graph, chain.nodes, heads) : run_chain(graph, chain.nodes, tokens);
  const Tensor& expected = merges ? tokens : heads;
  bool shape_fits = moved.shape() == expected.shape() || (merges && moved.shape() == s.flat_tokens());
  return shape_fits && std::equal(moved.f32().begin(), moved.f32().end(), expected.f32().begin());
}

// What the proof of a chain depends on: each step's op, attributes and types, and the split asked.
std::string chain_key(const Graph& graph, const Chain& chain, const HeadShape& s, bool transposed, bool merges) {
  std::string key = fmt::format("{}x{}x{}x{} {}{}{}{}:", s.batch, s.sequence, s.heads, s.head_size, s.sequence_first,
                                s.batched_heads, transposed, merges);
  for (NodeId id : chain.nodes) {
    const Node& node = graph.node(id);
    key += fmt::format(" {}[{:x}] {} -> {};", node.op(), attributes_hash(node.attrs),
                       graph.value(node.inputs[0]).type.to_string(), graph.value(node.outputs[0]).type.to_string());
  }
  return key;
}

// chain_splits_heads, each distinct chain proved once per process: a model repeats one chain in
// every layer, and finalize meets them again in every candidate it prices.
bool proved_chain_splits_heads(const Graph& graph, const Chain& chain, const HeadShape& s, bool transposed, bool merges) {
  static std::mutex mutex;
  static std::unordered_map<std::string, bool> proved;
  std::string key = chain_key(graph, chain, s, transposed, merges);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = proved.find(key); found != proved.end()) return found->second;
  }
  bool result = chain_splits_heads(graph, chain, s, transposed, merges);
  std::lock_guard<std::mutex> lock(mutex);
  proved.emplace(std::move(key), result);
  return result;
}

// One projection: Add(MatMul(x, W), b) with W [Hin,H] and b [H] constants (a bias read through a
// Reshape, or broadcast along the last axis), its values read once.
struct Projection {
  ValueId input = kNoValue;
  Tensor weight, bias;
  std::vector<NodeId> nodes;
};

std::optional<Tensor> last_axis_bias(const Graph& graph, ValueId value, int64_t hidden) {
  const Tensor* source = constant_source(graph, value);
  const Shape& shape = graph.value(value).type.shape;
  if (!source || source->dtype() != DType::f32 || source->numel() != hidden || shape.rank() < 1 ||
      shape[shape.rank() - 1] != hidden)
    return std::nullopt;
  return source->reshaped(Shape{hidden});
}

// The f32 matrix [R,C] as [C,R].
Tensor transposed_matrix(const Tensor& matrix) {
  int64_t rows = matrix.shape()[0], columns = matrix.shape()[1];
  Tensor out(DType::f32, Shape{columns, rows});
  auto from = matrix.f32();
  auto to = out.mutable_f32();
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t column = 0; column < columns; ++column)
      to[static_cast<size_t>(column * rows + row)] = from[static_cast<size_t>(row * columns + column)];
  return out;
}

// A projection on the tokens' rows, as HF transformers' Conv1D writes it (addmm):
// Reshape(Gemm(Reshape(x [B,S,Hin], [B*S,Hin]), W, b), [B,S,H]), W a constant [Hin,H] (or [H,Hin]
// transposed), b a constant [H] or none (an exporter drops a bias of zeros), alpha and beta 1; each
// value read once (the last see projection_of).
std::optional<Projection> rows_projection_of(const Graph& graph, const Consumers& users, ValueId value, int64_t hidden,
                                             bool read_by_pieces) {
  const Node* back = producer_of(graph, value);
  const Shape& tokens = graph.value(value).type.shape;
  if (!back || back->op() != "Reshape" || (!read_by_pieces && !read_once(graph, users, value)) || tokens.rank() != 3 ||
      tokens[2] != hidden)
    return std::nullopt;
  ValueId projected = back->inputs[0];
  const Node* gemm = producer_of(graph, projected);
  if (!gemm || gemm->op() != "Gemm" || gemm->inputs.size() < 2 || !read_once(graph, users, projected) || gemm->attrs.get_int("transA") != 0 || gemm->attrs.get_float("alpha") != 1.0 ||
      gemm->attrs.get_float("beta") != 1.0 || graph.value(projected).type.shape != Shape{tokens[0] * tokens[1], hidden})
    return std::nullopt;
  ValueId rows = gemm->inputs[0];
  const Node* flatten = producer_of(graph, rows);
  if (!flatten || flatten->op() != "Reshape" || !read_once(graph, users, rows)) return std::nullopt;
  const Shape& input = graph.value(flatten->inputs[0]).type.shape;
  if (input.rank() != 3 || input[0] != tokens[0] || input[1] != tokens[1]) return std::nullopt;
  const Tensor* weight = constant_source(graph, gemm->inputs[1]);
  const Shape& weight_shape = graph.value(gemm->inputs[1]).type.shape;
  bool transposed = gemm->attrs.get_int("transB") != 0;
  if (!weight || weight->dtype() != DType::f32 || weight_shape != (transposed ? Shape{hidden, input[2]} : Shape{input[2], hidden}))
    return std::nullopt;
  bool biased = gemm->inputs.size() > 2 && gemm->inputs[2] != kNoValue;
  std::optional<Tensor> bias = biased ? last_axis_bias(graph, gemm->inputs[2], hidden) : Tensor(DType::f32, Shape{hidden});
  if (!bias) return std::nullopt;
  Tensor columns = weight->reshaped(weight_shape);
  if (transposed) columns = transposed_matrix(columns);
  return Projection{flatten->inputs[0], std::move(columns), std::move(*bias),
                    {graph.value(rows).producer, graph.value(projected).producer, graph.value(value).producer}};
}

// `read_by_pieces`: the projection's value may be read by several nodes (each a Slice of its
// columns; read_by_site_alone checks they are the site's).
std::optional<Projection> projection_of(const Graph& graph, const Consumers& users, ValueId value, int64_t hidden,
                                        bool read_by_pieces = false) {
  if (std::optional<Projection> rows = rows_projection_of(graph, users, value, hidden, read_by_pieces)) return rows;
  const Node* add = producer_of(graph, value);
  if (!add || add->op() != "Add" || add->inputs.size() != 2 || (!read_by_pieces && !read_once(graph, users, value)))
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    ValueId projected = add->inputs[static_cast<size_t>(side)];
    const Node* matmul = producer_of(graph, projected);
    if (!matmul || matmul->op() != "MatMul" || ops::fused_activation(matmul->attrs) != "none" ||
        !read_once(graph, users, projected) || graph.value(projected).type != graph.value(value).type)
      continue;
    const Tensor* weight = constant_source(graph, matmul->inputs[1]);
    const Shape& weight_shape = graph.value(matmul->inputs[1]).type.shape;
    if (!weight || weight->dtype() != DType::f32 || weight_shape.rank() != 2 || weight_shape[1] != hidden) continue;
    std::optional<Tensor> bias = last_axis_bias(graph, add->inputs[static_cast<size_t>(1 - side)], hidden);
    if (!bias) continue;
    return Projection{matmul->inputs[0], weight->reshaped(weight_shape), std::move(*bias),
                      {graph.value(projected).producer, graph.value(value).producer}};
  }
  return std::nullopt;
}

// The columns [offset, offset + H) of a packed projection: its weights' and its bias's.
Projection columns_of(const Projection& packed, int64_t offset, int64_t hidden) {
  int64_t rows = packed.weight.shape()[0], width = packed.weight.shape()[1];
  Projection columns{packed.input, Tensor(DType::f32, Shape{rows, hidden}), Tensor(DType::f32, Shape{hidden}), {}};
  auto weight = packed.weight.f32();
  for (int64_t row = 0; row < rows; ++row)
    std::copy(weight.begin() + row * width + offset, weight.begin() + row * width + offset + hidden,
              columns.weight.mutable_f32().begin() + row * hidden);
  auto bias = packed.bias.f32();
  std::copy(bias.begin() + offset, bias.begin() + offset + hidden, columns.bias.mutable_f32().begin());
  return columns;
}

// Whether `node` is a Slice of its input's columns (the last axis, step 1), every other axis whole.
bool is_column_slice(const Graph& graph, const Node& node) {
  if (node.op() != "Slice") return false;
  const Shape& shape = graph.value(node.inputs[0]).type.shape;
  const auto &starts = node.attrs.get_ints("starts"), &ends = node.attrs.get_ints("ends"), &steps = node.attrs.get_ints("steps");
  for (int axis = 0; axis < shape.rank(); ++axis) {
    auto a = static_cast<size_t>(axis);
    bool whole = starts[a] == 0 && ends[a] == shape[axis];
    if (steps[a] != 1 || (axis + 1 < shape.rank() && !whole)) return false;
  }
  return shape.rank() > 0;
}

// The scores' scale: Mul by, or Div by, scalar constants between the scores and the Softmax.
struct Scaled {
  ValueId scores = kNoValue;
  double scale = 1.0;
  std::vector<NodeId> nodes;
};

// A step that scales `node`'s other input by a scalar constant: Mul by it, or Div by it. Its factor
// and the input it scales, or nothing.
std::optional<std::pair<double, ValueId>> scale_step(const Graph& graph, const Node& node) {
  if ((node.op() != "Mul" && node.op() != "Div") || node.inputs.size() != 2) return std::nullopt;
  for (size_t side = node.op() == "Div" ? 1 : 0; side < 2; ++side) {
    const Tensor* constant = constant_source(graph, node.inputs[side]);
    if (!constant || constant->dtype() != DType::f32 || constant->numel() != 1) continue;
    double factor = constant->f32()[0];
    return std::pair{node.op() == "Div" ? 1.0 / factor : factor, node.inputs[1 - side]};
  }
  return std::nullopt;
}

Scaled scale_above(const Graph& graph, const Consumers& users, ValueId value) {
  Scaled scaled{value, 1.0, {}};
  for (const Node* step = producer_of(graph, value); step && read_once(graph, users, scaled.scores);
       step = producer_of(graph, scaled.scores)) {
    std::optional<std::pair<double, ValueId>> scales = scale_step(graph, *step);
    if (!scales) break;
    scaled.scale *= scales->first;
    scaled.nodes.push_back(graph.value(scaled.scores).producer);
    scaled.scores = scales->second;
  }
  return scaled;
}

// A causal mask's fill: the scores of every key after its query are set to (or added) a value at
// most this (or -inf), so that their softmax weights are 0 either way (exp(-1e4) underflows).
constexpr double kCausalFill = -1e4;

// The constant behind `value`, or the one its constant-only producers compute (a causal buffer
// sliced to the tokens and compared with 0, say), reading up to 16 times its elements.
std::optional<Tensor> constant_of(const Graph& graph, ValueId value) {
  if (const Tensor* source = constant_source(graph, value)) return *source;
  return small_derived_constant(graph, value, std::max<int64_t>(16 * graph.value(value).type.shape.numel(), 1 << 16));
}

// A scalar float constant at most kCausalFill (or -inf).
std::optional<double> causal_fill(const Graph& graph, ValueId value) {
  const Tensor* fill = constant_source(graph, value);
  if (!fill || fill->dtype() != DType::f32 || fill->numel() != 1 || !(fill->f32()[0] <= kCausalFill)) return std::nullopt;
  return fill->f32()[0];
}

// Whether `shape` [..,S,S] broadcasts to the scores' `scores_shape` [..,S,S] (each leading
// dimension 1 or the scores'; a mask built for the batch and constant-folded is [B,1,S,S]).
bool square_over_keys(const Shape& shape, const Shape& scores_shape) {
  int rank = shape.rank(), scores_rank = scores_shape.rank();
  if (rank < 2 || rank > scores_rank || shape[rank - 1] != scores_shape[scores_rank - 1] ||
      shape[rank - 2] != scores_shape[scores_rank - 2] || shape[rank - 1] != shape[rank - 2])
    return false;
  for (int axis = 0; axis + 2 < rank; ++axis)
    if (shape[axis] != 1 && shape[axis] != scores_shape[scores_rank - rank + axis]) return false;
  return true;
}

// Whether `value` is a constant bool [..,S,S] (square_over_keys) whose every [S,S] slice is true
// exactly above the diagonal (`above`: the keys after their query) or exactly on and below it.
bool is_causal_condition(const Graph& graph, ValueId value, const Shape& scores_shape, bool above) {
  const Shape& shape = graph.value(value).type.shape;
  if (graph.value(value).type.dtype != DType::boolean || !square_over_keys(shape, scores_shape)) return false;
  std::optional<Tensor> condition = constant_of(graph, value);
  if (!condition) return false;
  int64_t sequence = shape[shape.rank() - 1];
  auto flags = condition->b8();
  for (size_t at = 0; at < flags.size(); ++at) {
    int64_t query = static_cast<int64_t>(at) / sequence % sequence, key = static_cast<int64_t>(at) % sequence;
    if ((flags[at] != 0) != (above == (key > query))) return false;
  }
  return true;
}

// The fill of a constant additive mask [..,S,S] (square_over_keys) whose every [S,S] slice is 0 on
// and below the diagonal and one value at most kCausalFill (or -inf) above it (torch's square
// subsequent mask, a current torch's causal scaled_dot_product_attention), or nothing.
std::optional<double> causal_bias_fill(const Graph& graph, ValueId value, const Shape& scores_shape) {
  const Shape& shape = graph.value(value).type.shape;
  if (graph.value(value).type.dtype != DType::f32 || !square_over_keys(shape, scores_shape)) return std::nullopt;
  std::optional<Tensor> bias = constant_of(graph, value);
  int64_t sequence = shape[shape.rank() - 1];
  if (!bias || sequence < 2) return std::nullopt;
  auto entries = bias->f32();
  float fill = entries[1];
  if (!(fill <= kCausalFill)) return std::nullopt;
  for (size_t at = 0; at < entries.size(); ++at) {
    int64_t query = static_cast<int64_t>(at) / sequence % sequence, key = static_cast<int64_t>(at) % sequence;
    if (entries[at] != (key > query ? fill : 0.0f)) return std::nullopt;
  }
  return fill;
}

// A Where that masks every key after its query, as GPT-style models write a causal mask:
// Where(keep, scores, fill) with `keep` true exactly on and below the diagonal (a sliced bool
// buffer), or Where(masked, fill, scores) with `masked` true exactly above it (masked_fill); the
// condition a constant [..,S,S] (square_over_keys), the fill a scalar constant (causal_fill).
struct CausalWhere {
  ValueId scores = kNoValue;
  double fill = 0.0;
};

std::optional<CausalWhere> causal_where(const Graph& graph, const Node& where) {
  if (where.op() != "Where" || where.inputs.size() != 3) return std::nullopt;
  const Shape& written = graph.value(where.outputs[0]).type.shape;
  for (size_t fill_side : {size_t{1}, size_t{2}}) {
    ValueId scores = where.inputs[3 - fill_side];
    std::optional<double> fill = causal_fill(graph, where.inputs[fill_side]);
    if (fill && graph.value(scores).type == graph.value(where.outputs[0]).type &&
        is_causal_condition(graph, where.inputs[0], written, fill_side == 1))
      return CausalWhere{scores, *fill};
  }
  return std::nullopt;
}

// The scores and their scale above the Softmax's input, and between them, in either order, an
// attention bias added after the scale (either side of the Add: the side that reaches the scores'
// MatMul) and a causal Where.
struct Scores {
  Scaled scaled;
  ValueId bias = kNoValue;
  NodeId bias_add = -1;
  NodeId causal_where = -1;
  double causal_fill = 0.0;
};

// Whether `value` is the scaled scores, through a causal Where if any.
bool reaches_scores(const Graph& graph, const Consumers& users, ValueId value) {
  if (const Node* step = producer_of(graph, value))
    if (std::optional<CausalWhere> causal = causal_where(graph, *step)) value = causal->scores;
  const Node* scores = producer_of(graph, scale_above(graph, users, value).scores);
  return scores && scores->op() == "MatMul";
}

Scores scores_above(const Graph& graph, const Consumers& users, ValueId value) {
  Scores found;
  for (bool stepped = true; stepped;) {
    stepped = false;
    const Node* step = producer_of(graph, value);
    if (!step || !read_once(graph, users, value)) break;
    if (found.causal_where < 0)
      if (std::optional<CausalWhere> causal = causal_where(graph, *step)) {
        found.causal_where = graph.value(value).producer;
        found.causal_fill = causal->fill;
        value = causal->scores;
        stepped = true;
        continue;
      }
    if (found.bias_add >= 0 || step->op() != "Add" || step->inputs.size() != 2) break;
    for (size_t side = 0; side < 2 && !stepped; ++side)
      if (reaches_scores(graph, users, step->inputs[side])) {
        found.bias = step->inputs[1 - side];
        found.bias_add = graph.value(value).producer;
        value = step->inputs[side];
        stepped = true;
      }
  }
  found.scaled = scale_above(graph, users, value);
  return found;
}

// How the fused op reads an attention bias: reshaped to `view` (where B and N are one axis of the
// scores), then expanded to `shape`, [B or 1, N or 1, S, S].
struct BiasReading {
  Shape view, shape;
};

// How the fused op reads an attention bias of `type`, or none where it does not broadcast to the
// scores (float32, of no higher rank, its last axis the keys'). Scores [B,N,S,S] read it as it is;
// scores [B*N,S,S] read [B*N or 1, S or 1, S] split into [B,N] (or [1,1]) and the rest.
std::optional<BiasReading> attention_bias_reading(const TensorType& type, const HeadShape& s) {
  Shape scores = s.scores();
  int rank = scores.rank();
  if (type.dtype != DType::f32 || type.shape.rank() > rank || ops::broadcast_shapes(type.shape, scores) != scores)
    return std::nullopt;
  std::vector<int64_t> dims(static_cast<size_t>(rank - type.shape.rank()), 1);
  dims.insert(dims.end(), type.shape.dims().begin(), type.shape.dims().end());
  if (dims.back() != s.sequence) return std::nullopt;  // the op reads every key's bias
  if (!s.batched_heads) return BiasReading{type.shape, Shape{dims[0], dims[1], s.sequence, s.sequence}};
  Shape view = dims[0] == 1 ? Shape{1, 1, dims[1], s.sequence} : Shape{s.batch, s.heads, dims[1], s.sequence};
  return BiasReading{view, Shape{view[0], view[1], s.sequence, s.sequence}};
}

// Peels scalar scale steps off `value` (where torch's exporter scales Q and K): their factor joins
// the site's scale and their nodes the site's. Returns the value above them.
ValueId peel_scale(const Graph& graph, const Consumers& users, ValueId value, AttentionSite& site) {
  Scaled steps = scale_above(graph, users, value);
  site.scale *= steps.scale;
  site.nodes.insert(site.nodes.end(), steps.nodes.begin(), steps.nodes.end());
  return steps.scores;
}

// The layout chain above a head: a column Slice it starts with is a packed projection's piece, not
// part of the chain.
Chain head_chain_above(const Graph& graph, const Consumers& users, ValueId head) {
  Chain chain = chain_above(graph, users, head);
  if (!chain.nodes.empty() && is_column_slice(graph, graph.node(chain.nodes.front()))) {
    chain.source = graph.node(chain.nodes.front()).outputs[0];
    chain.nodes.erase(chain.nodes.begin());
  }
  return chain;
}

// A head taken from a packed projection [tokens, W] (W >= H) by layout steps and one step that
// selects its part, whose input the other parts read too: a Gather of a constant index (a current
// torch's MultiheadAttention stacks Q, K and V and takes each apart so), one of a Split's pieces, or
// a Slice. Each step with the value it writes on the way to the head, from the packed value down.
struct PackedChain {
  std::vector<std::pair<NodeId, ValueId>> steps;
  ValueId packed = kNoValue;
  Scaled scale;  // scalar scale steps among the steps (Q's and K's, where sink-layouts moved them), not in `steps`
};

bool selects_part(const Graph& graph, const Node& node) {
  if (node.op() == "Split") return node.inputs.size() == 1 || graph.is_constant(node.inputs[1]);
  if (node.op() == "Slice") return node.inputs.size() == 1;
  if (node.op() != "Gather" || node.inputs.size() != 2) return false;
  return graph.is_constant(node.inputs[1]) && graph.value(node.inputs[1]).type.shape.rank() == 0;
}

// The steps above `head`, each value read once but the selecting step's input, up to the first
// value a projection or no such step writes (`scaled`: scale steps too); nothing unless one step
// selects.
std::optional<PackedChain> packed_chain_above(const Graph& graph, const Consumers& users, ValueId head, bool scaled) {
  PackedChain chain{{}, head, {}};
  bool selected = false, shared_input = false;  // shared_input: chain.packed is the selecting step's input
  for (const Node* step = producer_of(graph, head); step; step = producer_of(graph, chain.packed)) {
    if (!shared_input && !read_once(graph, users, chain.packed)) break;
    const Shape& shape = graph.value(chain.packed).type.shape;
    if (selected && shape.rank() == 3 && projection_of(graph, users, chain.packed, shape[2], true)) break;
    std::optional<std::pair<double, ValueId>> scales = scaled ? scale_step(graph, *step) : std::nullopt;
    if (scales && !shared_input) {
      chain.scale.scale *= scales->first;
      chain.scale.nodes.push_back(graph.value(chain.packed).producer);
      chain.packed = scales->second;
      continue;
    }
    bool selects = !selected && selects_part(graph, *step);
    if (!selects && !is_layout_step(*step)) break;
    chain.steps.insert(chain.steps.begin(), {graph.value(chain.packed).producer, chain.packed});
    chain.packed = step->inputs[0];
    shared_input = selects;
    selected = selected || selects;
  }
  if (!selected) return std::nullopt;
  return chain;
}

// One step run on `tensor` by its own kernel (its other inputs its constants); what it writes to `value`.
Tensor run_step(const Graph& graph, const Node& node, const Tensor& tensor, ValueId value) {
  std::vector<const Tensor*> inputs{&tensor};
  for (size_t input = 1; input < node.inputs.size(); ++input) inputs.push_back(&*graph.value(node.inputs[input]).constant);
  std::vector<TensorType> types;
  for (ValueId output : node.outputs) types.push_back(graph.value(output).type);
  std::vector<Tensor> written = execute_node(node, inputs, types);
  auto index = static_cast<size_t>(std::find(node.outputs.begin(), node.outputs.end(), value) - node.outputs.begin());
  return std::move(written.at(index));
}

// Where the chain takes the packed projection's columns [offset, offset + H) to the head (Q and V
// [B,N,S,d], K [B,N,d,S], or B and N one axis), every element where its heads hold it: the offset,
// or nothing. Checked by moving each element's index through the steps' own kernels.
std::optional<int64_t> packed_chain_offset(const Graph& graph, const PackedChain& chain, const HeadShape& s,
                                           bool transposed) {
  const Shape& packed = graph.value(chain.packed).type.shape;
  const Shape tokens = s.tokens();
  if (packed.rank() != 3 || packed[0] != tokens[0] || packed[1] != tokens[1] || packed[2] < s.hidden() ||
      packed.numel() >= kExactIndices)
    return std::nullopt;
  int64_t width = packed[2], hidden = s.hidden();
  Tensor moved = token_indices(s, width);
  for (const auto& [id, value] : chain.steps) moved = run_step(graph, graph.node(id), moved, value);
  Tensor expected = token_indices_as_heads(s, transposed);  // (b * S + token) * H + column
  if (moved.shape() != expected.shape() || moved.numel() == 0) return std::nullopt;
  auto offset = static_cast<int64_t>(moved.f32()[0]);  // of the first token's first column: 0 + offset
  if (offset < 0 || offset > width - hidden) return std::nullopt;
  auto got = moved.f32();
  auto want = expected.f32();
  for (size_t at = 0; at < got.size(); ++at) {
    auto index = static_cast<int64_t>(want[at]);
    if (got[at] != static_cast<float>(index / hidden * width + offset + index % hidden)) return std::nullopt;
  }
  return offset;
}

// packed_chain_offset, each distinct chain proved once per process (every layer repeats one).
std::optional<int64_t> proved_packed_chain_offset(const Graph& graph, const PackedChain& chain, const HeadShape& s,
                                                  bool transposed) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::optional<int64_t>> proved;
  std::string key = fmt::format("{}x{}x{}x{} {}{}{} {}:", s.batch, s.sequence, s.heads, s.head_size, s.sequence_first,
                                s.batched_heads, transposed, graph.value(chain.packed).type.to_string());
  for (const auto& [id, value] : chain.steps) {
    const Node& node = graph.node(id);
    key += fmt::format(" {}[{:x}] -> {} #{};", node.op(), attributes_hash(node.attrs), graph.value(value).type.to_string(),
                       std::find(node.outputs.begin(), node.outputs.end(), value) - node.outputs.begin());
    for (size_t input = 1; input < node.inputs.size(); ++input)
      key += fmt::format(" {:x}", graph.value(node.inputs[input]).constant->content_hash());
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = proved.find(key); found != proved.end()) return found->second;
  }
  std::optional<int64_t> offset = packed_chain_offset(graph, chain, s, transposed);
  std::lock_guard<std::mutex> lock(mutex);
  proved.emplace(std::move(key), offset);
  return offset;
}

void add_once(std::vector<NodeId>& nodes, NodeId id) {
  if (std::find(nodes.begin(), nodes.end(), id) == nodes.end()) nodes.push_back(id);
}

// One of Q, K and V taken from a packed projection by a PackedChain, proved as a whole; the
// projection's, the scale's and the chain's nodes go to `shared` (the steps above the selecting one
// each part reaches), their factor to `site`.
std::optional<Projection> packed_part_above(const Graph& graph, const Consumers& users, ValueId head, int part,
                                            const HeadShape& s, AttentionSite& site, std::vector<NodeId>& shared) {
  std::optional<PackedChain> chain = packed_chain_above(graph, users, head, part < 2);
  if (!chain) return std::nullopt;
  Scaled scaled = part < 2 ? scale_above(graph, users, chain->packed) : Scaled{chain->packed, 1.0, {}};
  const Shape& packed_shape = graph.value(chain->packed).type.shape;
  if (packed_shape.rank() != 3) return std::nullopt;
  std::optional<Projection> packed = projection_of(graph, users, scaled.scores, packed_shape[2], true);
  std::optional<int64_t> offset = packed ? proved_packed_chain_offset(graph, *chain, s, part == 1) : std::nullopt;
  if (!offset) return std::nullopt;
  site.scale *= scaled.scale * chain->scale.scale;
  for (NodeId id : scaled.nodes) add_once(shared, id);
  for (NodeId id : chain->scale.nodes) add_once(shared, id);
  for (NodeId id : packed->nodes) add_once(shared, id);
  for (const auto& step : chain->steps) add_once(shared, step.first);
  return columns_of(*packed, *offset, s.hidden());
}

// One of Q (part 0), K (1) and V (2) above the value its MatMul reads: scale steps (Q and K only),
// then either its columns of a packed projection (packed_part_above) or the layout chain into heads,
// scale steps again, and a projection of its own. Adds the part's nodes to the site (a packed
// projection's to `shared`) and returns its projection, or nothing.
std::optional<Projection> part_above(const Graph& graph, const Consumers& users, ValueId head, int part, const HeadShape& s,
                                     AttentionSite& site, std::vector<NodeId>& shared) {
  if (part < 2) head = peel_scale(graph, users, head, site);
  if (std::optional<Projection> packed = packed_part_above(graph, users, head, part, s, site, shared)) return packed;
  Chain chain = head_chain_above(graph, users, head);
  if (graph.value(chain.source).type.shape != s.tokens() || !proved_chain_splits_heads(graph, chain, s, part == 1, false))
    return std::nullopt;
  ValueId tokens = part < 2 ? peel_scale(graph, users, chain.source, site) : chain.source;  // where sink-layouts moves it
  std::optional<Projection> projection = projection_of(graph, users, tokens, s.hidden());
  if (!projection) return std::nullopt;
  site.nodes.insert(site.nodes.end(), projection->nodes.begin(), projection->nodes.end());
  site.nodes.insert(site.nodes.end(), chain.nodes.begin(), chain.nodes.end());
  return projection;
}

// Whether every value the site's nodes compute but its output is read by the site's nodes alone
// (a packed projection's every piece one of its parts, a scale moved onto it read by its piece).
bool read_by_site_alone(const Graph& graph, const Consumers& users, const std::vector<NodeId>& nodes, ValueId output) {
  auto in_site = [&](NodeId id) { return std::find(nodes.begin(), nodes.end(), id) != nodes.end(); };
  for (NodeId id : nodes)
    for (ValueId value : graph.node(id).outputs) {
      if (value == output) continue;
      if (graph.is_output(value)) return false;
      for (NodeId reader : users[static_cast<size_t>(value)])
        if (!in_site(reader)) return false;
    }
  return true;
}

// Q's, K's and V's [rows, H] weights side by side: [rows, 3H].
Tensor joined_weights(const std::vector<Tensor>& pieces, int64_t rows, int64_t hidden) {
  Tensor weights(DType::f32, Shape{rows, 3 * hidden});
  auto joined = weights.mutable_f32();
  for (size_t part = 0; part < pieces.size(); ++part) {
    auto piece = pieces[part].f32();
    for (int64_t row = 0; row < rows; ++row)
      std::copy(piece.begin() + row * hidden, piece.begin() + (row + 1) * hidden,
                joined.begin() + row * 3 * hidden + static_cast<int64_t>(part) * hidden);
  }
  return weights;
}

// torch's scaled_dot_product_attention guards its probabilities against the NaN of a row whose
// every key is masked by -inf: Where(IsNaN(p), 0, p), p read by those two nodes alone.
struct NanGuard {
  std::vector<NodeId> nodes;  // IsNaN and Where
  ValueId output = kNoValue;
};

std::optional<NanGuard> nan_guard_below(const Graph& graph, const Consumers& users, ValueId probabilities) {
  std::span<const NodeId> readers = users[static_cast<size_t>(probabilities)];
  if (readers.size() != 2 || graph.is_output(probabilities)) return std::nullopt;
  for (NodeId test : readers) {
    const Node& is_nan = graph.node(test);
    if (is_nan.op() != "IsNaN" || !read_once(graph, users, is_nan.outputs[0])) continue;
    NodeId where_id = users[static_cast<size_t>(is_nan.outputs[0])][0];
    const Node& where = graph.node(where_id);
    const Tensor* zero = where.inputs.size() == 3 ? constant_source(graph, where.inputs[1]) : nullptr;
    if (where.op() == "Where" && where.inputs[0] == is_nan.outputs[0] && where.inputs[2] == probabilities && zero &&
        zero->dtype() == DType::f32 && zero->numel() == 1 && zero->f32()[0] == 0.0f &&
        std::count(readers.begin(), readers.end(), where_id) == 1 &&
        graph.value(where.outputs[0]).type == graph.value(probabilities).type)
      return NanGuard{{test, where_id}, where.outputs[0]};
  }
  return std::nullopt;
}

// The nodes every site around one Softmax starts from: the scores' MatMul (below their scale and
// bias) and the context's MatMul by V (reading the probabilities through a NaN guard, if any).
struct Core {
  Scores found;
  const Node* scores = nullptr;
  const Node* context = nullptr;
  std::optional<NanGuard> guard;
};

std::optional<Core> core_at(const Graph& graph, const Consumers& users, NodeId softmax_id) {
  const Node& softmax = graph.node(softmax_id);
  if (softmax.op() != "Softmax") return std::nullopt;
  const Shape& shape = graph.value(softmax.outputs[0]).type.shape;
  int rank = shape.rank();
  if ((rank != 3 && rank != 4) || normalize_axis(softmax.attrs.get_int("axis"), rank) != rank - 1) return std::nullopt;
  std::optional<NanGuard> guard = nan_guard_below(graph, users, softmax.outputs[0]);
  ValueId probabilities = guard ? guard->output : softmax.outputs[0];
  if (!read_once(graph, users, probabilities)) return std::nullopt;
  const Node& context = graph.node(users[static_cast<size_t>(probabilities)][0]);
  if (context.op() != "MatMul" || context.inputs[0] != probabilities || ops::fused_activation(context.attrs) != "none")
    return std::nullopt;
  Scores found = scores_above(graph, users, softmax.inputs[0]);
  const Node* scores = producer_of(graph, found.scaled.scores);
  if (!scores || scores->op() != "MatMul" || ops::fused_activation(scores->attrs) != "none" ||
      !read_once(graph, users, found.scaled.scores) || !std::isfinite(found.scaled.scale) || found.scaled.scale == 0.0)
    return std::nullopt;
  return Core{std::move(found), scores, &context, std::move(guard)};
}

// The head shapes a site around `core` may have: from the probabilities [B,N,S,S] and V [B,N,S,d],
// or, where B and N are one axis ([B*N,S,S]), with N from the hidden size Q's chain starts from;
// the tokens either [B,S,H] or [S,B,H]. The chains' proofs decide which, if any, it is.
std::vector<HeadShape> head_shapes(const Graph& graph, const Consumers& users, const Core& core) {
  const Shape& probabilities = graph.value(core.context->inputs[0]).type.shape;
  const Shape& values = graph.value(core.context->inputs[1]).type.shape;
  if (values.rank() != probabilities.rank()) return {};
  int64_t head_size = values[values.rank() - 1], sequence = probabilities[probabilities.rank() - 1];
  int64_t batch = probabilities[0], heads = 0;
  if (probabilities.rank() == 4) {
    heads = probabilities[1];
  } else {
    ValueId query = scale_above(graph, users, core.scores->inputs[0]).scores;
    const Shape& tokens = graph.value(head_chain_above(graph, users, query).source).type.shape;
    int64_t hidden = tokens.rank() == 3 ? tokens[2] : 0;
    if (head_size <= 0 || hidden % head_size != 0) return {};
    heads = hidden / head_size;
    if (heads <= 0 || probabilities[0] % heads != 0) return {};
    batch = probabilities[0] / heads;
  }
  std::vector<HeadShape> shapes;
  for (bool sequence_first : {false, true})
    shapes.push_back({batch, sequence, heads, head_size, sequence_first, probabilities.rank() == 3});
  return shapes;
}

// Whether `node` acts on each row of `rows` [R,H] alone: a MatMul or a Gemm (rows not transposed)
// by a constant [H,H'], a Gemm's bias the same for every row.
bool is_row_projection(const Graph& graph, const Node& node, ValueId rows) {
  if (node.inputs.size() < 2 || node.inputs[0] != rows || node.outputs.size() != 1 ||
      std::count(node.inputs.begin(), node.inputs.end(), rows) != 1)
    return false;
  if (!constant_source(graph, node.inputs[1]) || graph.value(node.inputs[1]).type.shape.rank() != 2) return false;
  if (node.op() == "MatMul") return node.inputs.size() == 2;
  if (node.op() != "Gemm" || node.attrs.get_int("transA") != 0) return false;
  if (node.inputs.size() < 3 || node.inputs[2] == kNoValue) return true;
  const Shape& bias = graph.value(node.inputs[2]).type.shape;
  return constant_source(graph, node.inputs[2]) && (bias.rank() <= 1 || (bias.rank() == 2 && bias[0] == 1));
}

// torch's batch_first MultiheadAttention after its rows [S*B,H]: the output projection, a Reshape
// to [S,B,H'] and a Transpose back to [B,S,H'], each value read by the next node alone. The fused
// op's output [B,S,H] taken to its rows [B*S,H] instead, projected and reshaped, needs neither
// Transpose: the projection acts on each row alone, so the rows' order goes through it.
struct RowTail {
  NodeId projection = -1;
  std::vector<NodeId> nodes;  // the projection, the Reshape and the Transpose
  ValueId output = kNoValue;  // [B,S,H']
};

std::optional<RowTail> batch_first_tail(const Graph& graph, const Consumers& users, ValueId rows, const HeadShape& s) {
  if (!read_once(graph, users, rows)) return std::nullopt;
  NodeId projection = users[static_cast<size_t>(rows)][0];
  if (!is_row_projection(graph, graph.node(projection), rows)) return std::nullopt;
  ValueId projected = graph.node(projection).outputs[0];
  const Shape& projected_shape = graph.value(projected).type.shape;
  if (projected_shape.rank() != 2 || !read_once(graph, users, projected)) return std::nullopt;
  NodeId reshape = users[static_cast<size_t>(projected)][0];
  ValueId sequence_first = graph.node(reshape).outputs[0];
  if (graph.node(reshape).op() != "Reshape" || graph.value(sequence_first).type.shape != Shape{s.sequence, s.batch, projected_shape[1]} ||
      !read_once(graph, users, sequence_first))
    return std::nullopt;
  NodeId transpose = users[static_cast<size_t>(sequence_first)][0];
  const Node& swap = graph.node(transpose);
  if (swap.op() != "Transpose" || swap.attrs.get_ints("perm") != kSwapFirstAxes) return std::nullopt;
  return RowTail{projection, {projection, reshape, transpose}, swap.outputs[0]};
}

// The gate (may_rewrite) asked of the site's nodes but those whose values of other types the finder
// read and checked: the causal Where's bool condition, a Gather's index, the NaN guard's test.
bool site_may_rewrite(const Graph& graph, const std::vector<NodeId>& nodes, const std::vector<NodeId>& checked) {
  std::vector<NodeId> gated;
  for (NodeId id : nodes)
    if (std::find(checked.begin(), checked.end(), id) == checked.end() &&
        !(graph.node(id).op() == "Gather" && selects_part(graph, graph.node(id))))
      gated.push_back(id);
  return may_rewrite(graph, gated);
}

// Whether no row of the scores can have its every key masked by -inf (so a NaN guard passes every
// value): no attention bias left, or a constant one with finite entries; a causal mask keeps each
// query's own key.
bool no_row_fully_masked(const Graph& graph, const AttentionSite& site) {
  if (site.attention_bias == kNoValue) return true;
  std::optional<Tensor> bias = constant_of(graph, site.attention_bias);
  if (!bias) return false;
  auto entries = bias->f32();
  return std::all_of(entries.begin(), entries.end(), [](float entry) { return std::isfinite(entry); });
}

// The site around one Softmax with head shape `s`, or nothing.
std::optional<AttentionSite> site_with(const Graph& graph, const Consumers& users, NodeId softmax_id, const Core& core,
                                       const HeadShape& s) {
  const Node& softmax = graph.node(softmax_id);
  const Node& context = *core.context;
  const Scores& found = core.found;
  const Scaled& scaled = found.scaled;
  const Node* scores = core.scores;
  const Shape& probabilities = graph.value(softmax.outputs[0]).type.shape;
  if (probabilities != s.scores() || graph.value(scores->inputs[0]).type.shape != s.split(false) ||
      graph.value(scores->inputs[1]).type.shape != s.split(true) || graph.value(context.inputs[1]).type.shape != s.split(false))
    return std::nullopt;
  AttentionSite site;
  site.heads = s.heads;
  site.scale = scaled.scale;
  site.sequence_first = s.sequence_first;
  if (found.causal_where >= 0) {
    site.causal = true;
    site.mask_filter_value = found.causal_fill;
    site.nodes.push_back(found.causal_where);
  }
  std::optional<double> bias_fill;
  if (found.bias != kNoValue) bias_fill = causal_bias_fill(graph, found.bias, probabilities);
  if (bias_fill) {  // ONNX Runtime's unidirectional adds the fill as the mask did
    site.causal = true;
    site.mask_filter_value = found.causal_where >= 0 ? std::min(site.mask_filter_value, *bias_fill) : *bias_fill;
    site.nodes.push_back(found.bias_add);
  } else if (found.bias != kNoValue) {
    std::optional<BiasReading> read_as = attention_bias_reading(graph.value(found.bias).type, s);
    if (!read_as || graph.value(softmax.inputs[0]).type.shape != probabilities) return std::nullopt;
    site.attention_bias = found.bias;
    site.attention_bias_view = read_as->view;
    site.attention_bias_shape = read_as->shape;
    site.nodes.push_back(found.bias_add);
  }
  Tensor bias(DType::f32, Shape{3 * s.hidden()});
  std::vector<Tensor> pieces;
  const ValueId heads_of[] = {scores->inputs[0], scores->inputs[1], context.inputs[1]};
  std::vector<NodeId> shared;   // a packed projection's nodes, once
  for (int part = 0; part < 3; ++part) {
    std::optional<Projection> projection = part_above(graph, users, heads_of[part], part, s, site, shared);
    if (!projection || (part > 0 && projection->input != site.input)) return std::nullopt;
    site.input = projection->input;
    pieces.push_back(std::move(projection->weight));
    std::copy(projection->bias.f32().begin(), projection->bias.f32().end(),
              bias.mutable_f32().begin() + part * s.hidden());
  }
  site.nodes.insert(site.nodes.end(), shared.begin(), shared.end());
  if (!std::isfinite(site.scale) || site.scale == 0.0) return std::nullopt;
  const Shape& input_shape = graph.value(site.input).type.shape;
  if (input_shape.rank() != 3 || input_shape[0] != s.tokens()[0] || input_shape[1] != s.tokens()[1]) return std::nullopt;
  std::optional<Chain> merged = chain_below(graph, users, context.outputs[0], s.tokens(), s.flat_tokens());
  if (!merged || !proved_chain_splits_heads(graph, *merged, s, false, true)) return std::nullopt;
  site.output = merged->source;
  std::optional<RowTail> tail;
  if (s.sequence_first && graph.value(site.output).type.shape == s.flat_tokens())
    tail = batch_first_tail(graph, users, site.output, s);
  if (tail) {
    site.row_projection = tail->projection;
    site.output = tail->output;
    site.nodes.insert(site.nodes.end(), tail->nodes.begin(), tail->nodes.end());
  }
  site.nodes.insert(site.nodes.end(), scaled.nodes.begin(), scaled.nodes.end());
  site.nodes.insert(site.nodes.end(), {graph.value(scaled.scores).producer, softmax_id, graph.value(context.outputs[0]).producer});
  site.nodes.insert(site.nodes.end(), merged->nodes.begin(), merged->nodes.end());
  std::vector<NodeId> checked{found.causal_where};
  if (core.guard) {
    if (!no_row_fully_masked(graph, site)) return std::nullopt;
    site.nodes.insert(site.nodes.end(), core.guard->nodes.begin(), core.guard->nodes.end());
    checked.insert(checked.end(), core.guard->nodes.begin(), core.guard->nodes.end());
  }
  if (!site_may_rewrite(graph, site.nodes, checked) || !read_by_site_alone(graph, users, site.nodes, site.output))
    return std::nullopt;
  NodeId bias_producer = site.attention_bias == kNoValue ? -1 : graph.value(site.attention_bias).producer;
  if (bias_producer >= 0 && std::find(site.nodes.begin(), site.nodes.end(), bias_producer) != site.nodes.end())
    return std::nullopt;  // the bias computed inside the site (scores added to themselves)
  site.weights = joined_weights(pieces, input_shape[2], s.hidden());
  site.bias = std::move(bias);
  return site;
}

// The whole site around one Softmax, or nothing.
std::optional<AttentionSite> site_at(const Graph& graph, const Consumers& users, NodeId softmax_id) {
  std::optional<Core> core = core_at(graph, users, softmax_id);
  if (!core) return std::nullopt;
  for (const HeadShape& s : head_shapes(graph, users, *core))
    if (std::optional<AttentionSite> site = site_with(graph, users, softmax_id, *core, s)) return site;
  return std::nullopt;
}

// The tokens [S,B,H] as [B,S,H]: the value a Transpose made them from, where one did (torch's
// batch_first MultiheadAttention; that Transpose then dies), or a new Transpose.
ValueId batch_first(Graph& graph, ValueId sequence_first, const std::string& name) {
  const Node* producer = producer_of(graph, sequence_first);
  if (producer && producer->op() == "Transpose" && producer->attrs.get_ints("perm") == kSwapFirstAxes)
    return producer->inputs[0];
  return graph.add_node1("Transpose", {{"perm", kSwapFirstAxes}}, {sequence_first}, name);
}

// The fused op's output [B,S,H] through the site's row projection: its rows [B*S,H] projected and
// reshaped to [B,S,H'], the site's output.
ValueId projected_rows(Graph& graph, const AttentionSite& site, ValueId fused, const std::string& name) {
  const Shape& tokens = graph.value(fused).type.shape;
  ValueId rows = graph.add_node1("Reshape", {{"shape", std::vector<int64_t>{tokens[0] * tokens[1], tokens[2]}}}, {fused},
                                 name + "_rows");
  const Node& projection = graph.node(site.row_projection);
  std::vector<ValueId> inputs = projection.inputs;
  inputs[0] = rows;
  Attributes attrs = projection.attrs;
  ValueId projected = graph.add_node1(projection.op(), std::move(attrs), std::move(inputs), name + "_projected");
  return graph.add_node1("Reshape", {{"shape", graph.value(site.output).type.shape.dims()}}, {projected},
                         name + "_batch_first_output");
}

}  // namespace

std::vector<AttentionSite> find_attention_sites(const Graph& graph) {
  Consumers users = graph.consumers();
  std::vector<AttentionSite> sites;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id)
    if (std::optional<AttentionSite> site = site_at(graph, users, id)) sites.push_back(std::move(*site));
  return sites;
}

int fuse_attention(Graph& graph, const std::vector<AttentionSite>& sites) {
  if (sites.empty()) return 0;
  std::vector<NodeId> removed;
  std::vector<std::pair<ValueId, ValueId>> replacements;
  std::vector<std::pair<std::string, std::string>> renames;  // (fused output, the site output's name)
  // One Reshape and one Expand per bias and shape (a mask every layer reads).
  std::map<std::tuple<ValueId, std::string, std::vector<int64_t>>, ValueId> bias_reads;
  for (const AttentionSite& site : sites) {
    std::string name = graph.value(site.output).name + "_attention";
    ValueId weights = graph.add_constant(graph.unique_value_name(name + "_qkv_weight"), site.weights);
    ValueId bias = graph.add_constant(graph.unique_value_name(name + "_qkv_bias"), site.bias);
    Attributes attrs{{"num_heads", site.heads}, {"scale", site.scale}};
    if (site.causal) {  // -inf as the float's lowest value: the op's sums stay finite, the weights 0 alike
      attrs.set("unidirectional", int64_t{1});
      attrs.set("mask_filter_value", std::max(site.mask_filter_value, double{std::numeric_limits<float>::lowest()}));
    }
    ValueId tokens = site.input;  // [B,S,Hin] as the fused op reads it
    if (site.sequence_first) tokens = batch_first(graph, site.input, name + "_batch_first");
    std::vector<ValueId> inputs{tokens, weights, bias};
    if (site.attention_bias != kNoValue) {
      ValueId added = site.attention_bias;
      for (const auto& [op, shape] : {std::pair{"Reshape", site.attention_bias_view}, std::pair{"Expand", site.attention_bias_shape}}) {
        if (graph.value(added).type.shape == shape) continue;
        auto [entry, fresh] = bias_reads.emplace(std::make_tuple(added, std::string(op), shape.dims()), kNoValue);
        if (fresh)
          entry->second = graph.add_node1(op, {{"shape", shape.dims()}}, {added},
                                          name + (std::string(op) == "Expand" ? "_bias_expanded" : "_bias_heads"));
        added = entry->second;
      }
      inputs.insert(inputs.end(), {kNoValue, kNoValue, added});
    }
    ValueId fused = graph.add_node1("Attention", attrs, inputs, name);
    if (site.row_projection >= 0) fused = projected_rows(graph, site, fused, name);
    else if (site.sequence_first)
      fused = graph.add_node1("Transpose", {{"perm", kSwapFirstAxes}}, {fused}, name + "_sequence_first");
    const Shape& written = graph.value(site.output).type.shape;
    if (graph.value(fused).type.shape != written)  // the site wrote the tokens' rows [B*S,H]
      fused = graph.add_node1("Reshape", {{"shape", written.dims()}}, {fused}, name + "_rows");
    replacements.emplace_back(site.output, fused);
    renames.emplace_back(graph.value(fused).name, graph.value(site.output).name);
    removed.insert(removed.end(), site.nodes.begin(), site.nodes.end());
  }
  graph.replace_uses(replacements);
  graph.remove_nodes(removed);
  for (const auto& [fused_name, output_name] : renames) graph.rename_value(*graph.find_value(fused_name), output_name);
  graph.sort_topologically();
  eliminate_dead_nodes(graph);  // a Reshape that fed a weight or bias to the site, read by nothing now
  return static_cast<int>(sites.size());
}

int pick_attention_fusion(Graph& graph, const cost::CostModel& cost) {
  if (!cost.measurement() || !cost.measurement()->fuses_onnx_runtime_ops) return 0;
  std::vector<AttentionSite> sites = find_attention_sites(graph);
  if (sites.empty()) return 0;
  // Each site priced fused alone against the program as it is (sites share no node, so one's
  // fusion leaves another's price as it was); those that price cheaper are fused together.
  const double unfused_us = cost.graph_cost(graph);
  std::vector<AttentionSite> cheaper;
  std::optional<Graph> last_alone;  // the program with the last cheaper site fused alone
  for (AttentionSite& site : sites) {
    Graph alone = graph;
    fuse_attention(alone, {site});
    if (!(cost.graph_cost(alone) < unfused_us)) continue;
    cheaper.push_back(std::move(site));
    last_alone = std::move(alone);
  }
  if (cheaper.empty()) return 0;
  if (cheaper.size() == 1) {  // priced already
    graph = std::move(*last_alone);
    return 1;
  }
  Graph fused = graph;
  fuse_attention(fused, cheaper);
  if (!(cost.graph_cost(fused) < unfused_us)) return 0;
  graph = std::move(fused);
  return static_cast<int>(cheaper.size());
}

}  // namespace pet
