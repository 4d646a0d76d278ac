// The masks a written-out attention puts on its scores and probabilities (attention_masks.h),
// recognised by their constants' values.
#include "search/passes/attention_masks.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "search/passes/attention_layouts.h"
#include "search/passes/constant_source.h"

namespace pet::attention {
namespace {

// A causal mask's fill: the scores of every key after its query are set to (or added) a value at
// most this (or -inf), so that their softmax weights are 0 either way (exp(-1e4) underflows).
constexpr double kCausalFill = -1e4;

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

}  // namespace

std::optional<Tensor> constant_of(const Graph& graph, ValueId value) {
  if (const Tensor* source = constant_source(graph, value)) return *source;
  return small_derived_constant(graph, value, std::max<int64_t>(16 * graph.value(value).type.shape.numel(), 1 << 16));
}

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

bool has_finite_values(const Graph& graph, ValueId value) {
  if (const Tensor* constant = constant_source(graph, value)) {
    if (constant->dtype() != DType::f32) return false;
    auto entries = constant->f32();
    return std::all_of(entries.begin(), entries.end(), [](float entry) { return std::isfinite(entry); });
  }
  const Node* producer = producer_of(graph, value);
  if (!producer) return false;
  if (producer->op() == "Where" && producer->inputs.size() == 3)
    return has_finite_values(graph, producer->inputs[1]) && has_finite_values(graph, producer->inputs[2]);
  return producer->def->traits.layout_only && producer->inputs.size() == 1 && has_finite_values(graph, producer->inputs[0]);
}

}  // namespace pet::attention
