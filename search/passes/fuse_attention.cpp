// Finds written-out self-attentions (their layout chains proved in attention_layouts.h, their masks
// read in attention_masks.h) and swaps in ONNX Runtime's Attention where the target runs it and the
// cost model prices it cheaper.
#include "search/passes/fuse_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "core/ops/fused_activation.h"
#include "core/ops/op_util.h"
#include "core/ops/strided_copy.h"
#include "search/cost/cost_model.h"
#include "search/passes/attention_layouts.h"
#include "search/passes/attention_masks.h"
#include "search/passes/constant_source.h"
#include "search/passes/eliminate_dead_nodes.h"
#include "verifier/element_domain.h"

namespace pet {
namespace {

using namespace attention;  // NOLINT(google-build-using-namespace): the site finder's own parts

const std::vector<int64_t> kSwapFirstAxes{1, 0, 2};

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

// The f32 matrix [R,C] as [C,R] (the strided copy Transpose's kernel makes).
Tensor transposed_matrix(const Tensor& matrix) {
  int64_t rows = matrix.shape()[0], columns = matrix.shape()[1];
  Tensor out(DType::f32, Shape{columns, rows});
  ops::copy_strided(matrix, ops::StridedView{0, {columns, rows}, {1, columns}}, out);
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

void add_once(std::vector<NodeId>& nodes, NodeId id) {
  if (std::find(nodes.begin(), nodes.end(), id) == nodes.end()) nodes.push_back(id);
}

// One of Q, K and V taken from a packed projection by a PackedChain, proved as a whole; the
// projection's, the scale's and the chain's nodes go to `shared` (the steps above the selecting one
// each part reaches), their factor to `site`.
std::optional<Projection> packed_part_above(const Graph& graph, const Consumers& users, ValueId head, int part,
                                            const HeadShape& s, AttentionSite& site, std::vector<NodeId>& shared) {
  auto projected = [&](ValueId value) {
    const Shape& shape = graph.value(value).type.shape;
    return shape.rank() == 3 && projection_of(graph, users, value, shape[2], true).has_value();
  };
  std::optional<PackedChain> chain = packed_chain_above(graph, users, head, part < 2, projected);
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
// value): no attention bias left, or one finite by how it is made; a causal mask keeps each query's
// own key.
bool no_row_fully_masked(const Graph& graph, const AttentionSite& site) {
  return site.attention_bias == kNoValue || has_finite_values(graph, site.attention_bias);
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
