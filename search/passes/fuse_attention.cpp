// Finds written-out self-attentions, proves their layout chains by moving indices through them,
// and swaps in ONNX Runtime's Attention where the target runs it and the cost model prices it cheaper.
#include "search/passes/fuse_attention.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
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

// The layout steps below `value` up to the first value of shape `goal` (chain.source: that value).
std::optional<Chain> chain_below(const Graph& graph, const Consumers& users, ValueId value, const Shape& goal) {
  Chain chain{{}, value};
  while (graph.value(chain.source).type.shape != goal) {
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

// [B,S,H] and its heads [B,N,S,d]: the dimensions a site's chains move between.
struct HeadShape {
  int64_t batch, sequence, heads, head_size;
  int64_t hidden() const { return heads * head_size; }
  Shape tokens() const { return Shape{batch, sequence, hidden()}; }
  // [B,N,S,d], or [B,N,d,S] for the transposed keys.
  Shape split(bool transposed) const {
    return transposed ? Shape{batch, heads, head_size, sequence} : Shape{batch, heads, sequence, head_size};
  }
};

// Each element's index in [B,S,H], laid out as its heads [B,N,S,d] (or [B,N,d,S]) hold it.
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

// Whether the chain takes [B,S,H] to its heads (or, `merges`, the heads [B,N,S,d] back to [B,S,H]).
bool chain_splits_heads(const Graph& graph, const Chain& chain, const HeadShape& s, bool transposed, bool merges) {
  if (s.tokens().numel() >= kExactIndices) return false;
  Tensor heads = token_indices_as_heads(s, transposed);
  Tensor tokens(DType::f32, s.tokens());  // each element its own index
  auto values = tokens.mutable_f32();
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  Tensor moved = merges ? run_chain(graph, chain.nodes, heads) : run_chain(graph, chain.nodes, tokens);
  const Tensor& expected = merges ? tokens : heads;
  return moved.shape() == expected.shape() && std::equal(moved.f32().begin(), moved.f32().end(), expected.f32().begin());
}

// What the proof of a chain depends on: each step's op, attributes and types, and the split asked.
std::string chain_key(const Graph& graph, const Chain& chain, const HeadShape& s, bool transposed, bool merges) {
  std::string key = fmt::format("{}x{}x{}x{} {}{}:", s.batch, s.sequence, s.heads, s.head_size, transposed, merges);
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

std::optional<Projection> projection_of(const Graph& graph, const Consumers& users, ValueId value, int64_t hidden) {
  const Node* add = producer_of(graph, value);
  if (!add || add->op() != "Add" || add->inputs.size() != 2 || !read_once(graph, users, value)) return std::nullopt;
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

// The projection a chain starts from: an Add(MatMul) of its own, or its columns of a packed one
// [B,S,W] split along the last axis (torch's chunk of one Linear into Q, K and V). `shared` gets
// the packed projection's nodes, which the other parts reach too.
std::optional<Projection> projection_part(const Graph& graph, const Consumers& users, ValueId value, int64_t hidden,
                                          std::vector<NodeId>& shared) {
  if (std::optional<Projection> own = projection_of(graph, users, value, hidden)) return own;
  const Node* split = producer_of(graph, value);
  if (!split || split->op() != "Split" || !read_once(graph, users, value)) return std::nullopt;
  const Shape& packed_shape = graph.value(split->inputs[0]).type.shape;
  int rank = packed_shape.rank();
  if (rank < 1 || normalize_axis(split->attrs.get_int("axis"), rank) != rank - 1 ||
      graph.value(value).type.shape[rank - 1] != hidden)
    return std::nullopt;
  std::optional<Projection> packed = projection_of(graph, users, split->inputs[0], packed_shape[rank - 1]);
  if (!packed) return std::nullopt;
  int index = static_cast<int>(std::find(split->outputs.begin(), split->outputs.end(), value) - split->outputs.begin());
  int64_t offset = ops::split_offset(split->attrs, index);
  int64_t width = packed_shape[rank - 1], rows = packed->weight.shape()[0];
  Projection part{packed->input, Tensor(DType::f32, Shape{rows, hidden}), Tensor(DType::f32, Shape{hidden}), {}};
  auto weight = packed->weight.f32();
  for (int64_t row = 0; row < rows; ++row)
    std::copy(weight.begin() + row * width + offset, weight.begin() + row * width + offset + hidden,
              part.weight.mutable_f32().begin() + row * hidden);
  auto bias = packed->bias.f32();
  std::copy(bias.begin() + offset, bias.begin() + offset + hidden, part.bias.mutable_f32().begin());
  for (NodeId id : packed->nodes)
    if (std::find(shared.begin(), shared.end(), id) == shared.end()) shared.push_back(id);
  NodeId split_id = graph.value(value).producer;
  if (std::find(shared.begin(), shared.end(), split_id) == shared.end()) shared.push_back(split_id);
  return part;
}

// The scores' scale: Mul by, or Div by, scalar constants between the scores and the Softmax.
struct Scaled {
  ValueId scores = kNoValue;
  double scale = 1.0;
  std::vector<NodeId> nodes;
};

Scaled scale_above(const Graph& graph, const Consumers& users, ValueId value) {
  Scaled scaled{value, 1.0, {}};
  for (const Node* step = producer_of(graph, value); step && read_once(graph, users, scaled.scores);
       step = producer_of(graph, scaled.scores)) {
    if ((step->op() != "Mul" && step->op() != "Div") || step->inputs.size() != 2) break;
    int constant_side = -1;
    for (int side = step->op() == "Div" ? 1 : 0; side < 2 && constant_side < 0; ++side) {
      const Tensor* constant = constant_source(graph, step->inputs[static_cast<size_t>(side)]);
      if (constant && constant->dtype() == DType::f32 && constant->numel() == 1) constant_side = side;
    }
    if (constant_side < 0) break;
    double factor = constant_source(graph, step->inputs[static_cast<size_t>(constant_side)])->f32()[0];
    scaled.scale = step->op() == "Div" ? scaled.scale / factor : scaled.scale * factor;
    scaled.nodes.push_back(graph.value(scaled.scores).producer);
    scaled.scores = step->inputs[static_cast<size_t>(1 - constant_side)];
  }
  return scaled;
}

// The scores and their scale above the Softmax's input, and the attention bias added after the
// scale where there is one (either side of the Add: the side whose scale steps reach a MatMul).
struct Scores {
  Scaled scaled;
  ValueId bias = kNoValue;
  NodeId bias_add = -1;
};

Scores scores_above(const Graph& graph, const Consumers& users, ValueId value) {
  const Node* add = producer_of(graph, value);
  if (add && add->op() == "Add" && add->inputs.size() == 2 && read_once(graph, users, value))
    for (int side = 0; side < 2; ++side) {
      Scaled scaled = scale_above(graph, users, add->inputs[static_cast<size_t>(side)]);
      const Node* scores = producer_of(graph, scaled.scores);
      if (scores && scores->op() == "MatMul")
        return {std::move(scaled), add->inputs[static_cast<size_t>(1 - side)], graph.value(value).producer};
    }
  return {scale_above(graph, users, value), kNoValue, -1};
}

// The shape the fused op reads an attention bias of `type` as ([B or 1, N or 1, S, S]), or none
// where it does not broadcast so (a float32 bias of rank <= 4, its last axis the keys').
std::optional<Shape> attention_bias_shape(const TensorType& type, const HeadShape& s) {
  Shape scores{s.batch, s.heads, s.sequence, s.sequence};
  if (type.dtype != DType::f32 || type.shape.rank() > 4 || ops::broadcast_shapes(type.shape, scores) != scores)
    return std::nullopt;
  std::vector<int64_t> dims(static_cast<size_t>(4 - type.shape.rank()), 1);
  dims.insert(dims.end(), type.shape.dims().begin(), type.shape.dims().end());
  if (dims[3] != s.sequence) return std::nullopt;  // the op reads every key's bias
  return Shape{dims[0], dims[1], s.sequence, s.sequence};
}

// Peels scalar scale steps off `value` (where torch's exporter scales Q and K): their factor joins
// the site's scale and their nodes the site's. Returns the value above them.
ValueId peel_scale(const Graph& graph, const Consumers& users, ValueId value, AttentionSite& site) {
  Scaled steps = scale_above(graph, users, value);
  site.scale *= steps.scale;
  site.nodes.insert(site.nodes.end(), steps.nodes.begin(), steps.nodes.end());
  return steps.scores;
}

// One of Q (part 0), K (1) and V (2) above the value its MatMul reads: scale steps (Q and K only),
// the layout chain into heads, scale steps again, and the projection. Adds the part's nodes to the
// site (a packed projection's to `shared`) and returns its projection and the [B,S,H] value it
// starts from, or nothing.
struct Part {
  Projection projection;
  ValueId tokens = kNoValue;
};

std::optional<Part> part_above(const Graph& graph, const Consumers& users, ValueId head, int part, const HeadShape& s,
                               AttentionSite& site, std::vector<NodeId>& shared) {
  if (part < 2) head = peel_scale(graph, users, head, site);
  Chain chain = chain_above(graph, users, head);
  if (graph.value(chain.source).type.shape != s.tokens() || !proved_chain_splits_heads(graph, chain, s, part == 1, false))
    return std::nullopt;
  ValueId tokens = part < 2 ? peel_scale(graph, users, chain.source, site) : chain.source;  // where sink-layouts moves it
  std::optional<Projection> projection = projection_part(graph, users, tokens, s.hidden(), shared);
  if (!projection) return std::nullopt;
  site.nodes.insert(site.nodes.end(), projection->nodes.begin(), projection->nodes.end());
  site.nodes.insert(site.nodes.end(), chain.nodes.begin(), chain.nodes.end());
  return Part{std::move(*projection), tokens};
}

// Whether every piece of each packed projection's Split is one of the site's parts.
bool splits_read_by_site_alone(const Graph& graph, const std::vector<NodeId>& shared, const std::vector<ValueId>& parts) {
  for (NodeId id : shared) {
    const Node& node = graph.node(id);
    if (node.op() == "Split")
      for (ValueId piece : node.outputs)
        if (std::find(parts.begin(), parts.end(), piece) == parts.end()) return false;
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

// The whole site around one Softmax, or nothing.
std::optional<AttentionSite> site_at(const Graph& graph, const Consumers& users, NodeId softmax_id) {
  const Node& softmax = graph.node(softmax_id);
  if (softmax.op() != "Softmax") return std::nullopt;
  const Shape& probabilities = graph.value(softmax.outputs[0]).type.shape;
  if (probabilities.rank() != 4 || normalize_axis(softmax.attrs.get_int("axis"), 4) != 3 ||
      !read_once(graph, users, softmax.outputs[0]))
    return std::nullopt;
  const Node& context = graph.node(users[static_cast<size_t>(softmax.outputs[0])][0]);
  if (context.op() != "MatMul" || context.inputs[0] != softmax.outputs[0] || ops::fused_activation(context.attrs) != "none")
    return std::nullopt;
  Scores found = scores_above(graph, users, softmax.inputs[0]);
  const Scaled& scaled = found.scaled;
  const Node* scores = producer_of(graph, scaled.scores);
  if (!scores || scores->op() != "MatMul" || ops::fused_activation(scores->attrs) != "none" ||
      !read_once(graph, users, scaled.scores) || !std::isfinite(scaled.scale) || scaled.scale == 0.0)
    return std::nullopt;
  const Shape& values_shape = graph.value(context.inputs[1]).type.shape;
  if (values_shape.rank() != 4) return std::nullopt;
  HeadShape s{probabilities[0], probabilities[2], probabilities[1], values_shape[3]};
  if (probabilities[2] != probabilities[3] || graph.value(scores->inputs[0]).type.shape != s.split(false) ||
      graph.value(scores->inputs[1]).type.shape != s.split(true) || values_shape != s.split(false))
    return std::nullopt;
  AttentionSite site;
  site.heads = s.heads;
  site.scale = scaled.scale;
  if (found.bias != kNoValue) {
    std::optional<Shape> read_as = attention_bias_shape(graph.value(found.bias).type, s);
    if (!read_as || graph.value(softmax.inputs[0]).type.shape != probabilities) return std::nullopt;
    site.attention_bias = found.bias;
    site.attention_bias_shape = *read_as;
    site.nodes.push_back(found.bias_add);
  }
  Tensor bias(DType::f32, Shape{3 * s.hidden()});
  std::vector<Tensor> pieces;
  const ValueId heads_of[] = {scores->inputs[0], scores->inputs[1], context.inputs[1]};
  std::vector<NodeId> shared;   // a packed projection's nodes, once
  std::vector<ValueId> tokens;  // each part's [B,S,H] value
  for (int part = 0; part < 3; ++part) {
    std::optional<Part> found_part = part_above(graph, users, heads_of[part], part, s, site, shared);
    if (!found_part || (part > 0 && found_part->projection.input != site.input)) return std::nullopt;
    site.input = found_part->projection.input;
    tokens.push_back(found_part->tokens);
    pieces.push_back(std::move(found_part->projection.weight));
    std::copy(found_part->projection.bias.f32().begin(), found_part->projection.bias.f32().end(),
              bias.mutable_f32().begin() + part * s.hidden());
  }
  if (!splits_read_by_site_alone(graph, shared, tokens)) return std::nullopt;
  site.nodes.insert(site.nodes.end(), shared.begin(), shared.end());
  if (!std::isfinite(site.scale) || site.scale == 0.0) return std::nullopt;
  const Shape& input_shape = graph.value(site.input).type.shape;
  if (input_shape.rank() != 3 || input_shape[0] != s.batch || input_shape[1] != s.sequence) return std::nullopt;
  std::optional<Chain> merged = chain_below(graph, users, context.outputs[0], s.tokens());
  if (!merged || !proved_chain_splits_heads(graph, *merged, s, false, true)) return std::nullopt;
  site.output = merged->source;
  site.nodes.insert(site.nodes.end(), scaled.nodes.begin(), scaled.nodes.end());
  site.nodes.insert(site.nodes.end(), {graph.value(scaled.scores).producer, softmax_id, graph.value(context.outputs[0]).producer});
  site.nodes.insert(site.nodes.end(), merged->nodes.begin(), merged->nodes.end());
  if (!may_rewrite(graph, site.nodes)) return std::nullopt;
  NodeId bias_producer = site.attention_bias == kNoValue ? -1 : graph.value(site.attention_bias).producer;
  if (bias_producer >= 0 && std::find(site.nodes.begin(), site.nodes.end(), bias_producer) != site.nodes.end())
    return std::nullopt;  // the bias computed inside the site (scores added to themselves)
  site.weights = joined_weights(pieces, input_shape[2], s.hidden());
  site.bias = std::move(bias);
  return site;
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
  std::map<std::pair<ValueId, std::vector<int64_t>>, ValueId> expanded;  // one Expand per bias and shape (a mask every layer reads)
  for (const AttentionSite& site : sites) {
    std::string name = graph.value(site.output).name + "_attention";
    ValueId weights = graph.add_constant(graph.unique_value_name(name + "_qkv_weight"), site.weights);
    ValueId bias = graph.add_constant(graph.unique_value_name(name + "_qkv_bias"), site.bias);
    Attributes attrs{{"num_heads", site.heads}, {"scale", site.scale}};
    std::vector<ValueId> inputs{site.input, weights, bias};
    if (site.attention_bias != kNoValue) {
      ValueId added = site.attention_bias;
      if (graph.value(added).type.shape != site.attention_bias_shape) {
        auto [entry, fresh] = expanded.emplace(std::make_pair(added, site.attention_bias_shape.dims()), kNoValue);
        if (fresh)
          entry->second = graph.add_node1("Expand", {{"shape", site.attention_bias_shape.dims()}}, {added},
                                          name + "_bias_expanded");
        added = entry->second;
      }
      inputs.insert(inputs.end(), {kNoValue, kNoValue, added});
    }
    ValueId fused = graph.add_node1("Attention", attrs, inputs, name);
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
  for (AttentionSite& site : sites) {
    Graph alone = graph;
    fuse_attention(alone, {site});
    if (cost.graph_cost(alone) < unfused_us) cheaper.push_back(std::move(site));
  }
  if (cheaper.empty()) return 0;
  Graph fused = graph;
  fuse_attention(fused, cheaper);
  if (!(cost.graph_cost(fused) < unfused_us)) return 0;
  graph = std::move(fused);
  return static_cast<int>(cheaper.size());
}

}  // namespace pet
