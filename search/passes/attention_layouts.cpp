// The layout side of a written-out attention (attention_layouts.h): layout chains and packed parts
// proved by moving each element's index through the steps' own kernels.
#include "search/passes/attention_layouts.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "core/executor.h"
#include "core/ops/fused_activation.h"
#include "core/structural_hash.h"
#include "search/passes/constant_source.h"

namespace pet::attention {
namespace {

// float32 holds every integer up to 2^24 exactly, so indices below it move through a chain unchanged.
constexpr int64_t kExactIndices = int64_t{1} << 24;

// Whether `node` only moves elements, one input to one output.
bool is_layout_step(const Node& node) {
  return node.def->traits.layout_only && node.inputs.size() == 1 && node.outputs.size() == 1 &&
         ops::fused_activation(node.attrs) == "none";
}

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

// The chain's steps run on `tensor` by their own kernels.
Tensor run_chain(const Graph& graph, const std::vector<NodeId>& chain, Tensor tensor) {
  for (NodeId id : chain) {
    const Node& node = graph.node(id);
    std::vector<Tensor> out = execute_node(node, {&tensor}, {graph.value(node.outputs[0]).type});
    tensor = std::move(out.at(0));
  }
  return tensor;
}

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

}  // namespace

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

Chain head_chain_above(const Graph& graph, const Consumers& users, ValueId head) {
  Chain chain = chain_above(graph, users, head);
  if (!chain.nodes.empty() && is_column_slice(graph, graph.node(chain.nodes.front()))) {
    chain.source = graph.node(chain.nodes.front()).outputs[0];
    chain.nodes.erase(chain.nodes.begin());
  }
  return chain;
}

bool selects_part(const Graph& graph, const Node& node) {
  if (node.op() == "Split") return node.inputs.size() == 1 || graph.is_constant(node.inputs[1]);
  if (node.op() == "Slice") return node.inputs.size() == 1;
  if (node.op() != "Gather" || node.inputs.size() != 2) return false;
  return graph.is_constant(node.inputs[1]) && graph.value(node.inputs[1]).type.shape.rank() == 0;
}

std::optional<PackedChain> packed_chain_above(const Graph& graph, const Consumers& users, ValueId head, bool scaled,
                                              const std::function<bool(ValueId)>& projected) {
  PackedChain chain{{}, head, {}};
  bool selected = false, shared_input = false;  // shared_input: chain.packed is the selecting step's input
  for (const Node* step = producer_of(graph, head); step; step = producer_of(graph, chain.packed)) {
    if (!shared_input && !read_once(graph, users, chain.packed)) break;
    if (selected && projected(chain.packed)) break;
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

}  // namespace pet::attention
