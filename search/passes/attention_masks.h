// The masks a written-out attention puts on its scores and probabilities: a causal mask (a Where of
// a constant triangular condition, an additive square subsequent mask) and torch's NaN guard.
#pragma once

#include <optional>
#include <vector>

#include "core/graph.h"

namespace pet::attention {

// The constant behind `value`, or the one its constant-only producers compute (a causal buffer
// sliced to the tokens and compared with 0, say), reading up to 16 times its elements.
std::optional<Tensor> constant_of(const Graph& graph, ValueId value);

// The fill of a constant additive mask [..,S,S] broadcasting to the scores [..,S,S] (a mask built
// for the batch and constant-folded is [B,1,S,S]) whose every [S,S] slice is 0 on and below the
// diagonal and one value at most -1e4 (or -inf) above it (torch's square subsequent mask, a
// current torch's causal scaled_dot_product_attention), or nothing.
std::optional<double> causal_bias_fill(const Graph& graph, ValueId value, const Shape& scores_shape);

// A Where that masks every key after its query, as GPT-style models write a causal mask:
// Where(keep, scores, fill) with `keep` true exactly on and below the diagonal (a sliced bool
// buffer), or Where(masked, fill, scores) with `masked` true exactly above it (masked_fill); the
// condition a constant [..,S,S] as above, the fill a scalar constant at most -1e4 (or -inf), so
// the masked keys' softmax weights are 0 as they are under ONNX Runtime's own causal mask.
struct CausalWhere {
  ValueId scores = kNoValue;
  double fill = 0.0;
};
std::optional<CausalWhere> causal_where(const Graph& graph, const Node& where);

// torch's scaled_dot_product_attention guards its probabilities against the NaN of a row whose
// every key is masked by -inf: Where(IsNaN(p), 0, p), p read by those two nodes alone.
struct NanGuard {
  std::vector<NodeId> nodes;  // IsNaN and Where
  ValueId output = kNoValue;
};
std::optional<NanGuard> nan_guard_below(const Graph& graph, const Consumers& users, ValueId probabilities);

// Whether every element of `value` is finite by how it is made: a constant of finite floats, a
// Where choosing between such values (HF's padding mask: 0 or the float's lowest value, chosen by
// the inputs' attention_mask), or layout steps of one.
bool has_finite_values(const Graph& graph, ValueId value);

}  // namespace pet::attention
