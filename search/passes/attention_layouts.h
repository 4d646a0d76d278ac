// The layout side of a written-out attention: the chains of layout steps between its tokens and
// their heads, proved by moving each element's index through the steps' own kernels, the packed
// projections whose parts such chains take apart, and the scalar scale steps along them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "core/graph.h"

namespace pet::attention {

// Whether `value` is read by one node and is no graph output.
inline bool read_once(const Graph& graph, const Consumers& users, ValueId value) {
  return users[static_cast<size_t>(value)].size() == 1 && !graph.is_output(value);
}

// The node that writes `value`, or nullptr for an input or constant.
inline const Node* producer_of(const Graph& graph, ValueId value) {
  NodeId producer = graph.value(value).producer;
  return producer < 0 ? nullptr : &graph.node(producer);
}

// Layout steps in the order they run, and the value the first of them reads.
struct Chain {
  std::vector<NodeId> nodes;
  ValueId source = kNoValue;
};

// The layout steps below `value` up to the first value of shape `goal` or `flat_goal` (chain.source:
// that value), each value read by the next step alone.
std::optional<Chain> chain_below(const Graph& graph, const Consumers& users, ValueId value, const Shape& goal,
                                 const Shape& flat_goal);

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

// Whether the chain takes the tokens to their heads (`transposed`: K's [B,N,d,S]; or, `merges`, the
// heads back to the tokens, or to their rows [B*S,H]), each distinct chain proved once per process.
bool proved_chain_splits_heads(const Graph& graph, const Chain& chain, const HeadShape& s, bool transposed, bool merges);

// The layout chain above a head (each value read by the next step alone); a column Slice it starts
// with is a packed projection's piece, not part of the chain.
Chain head_chain_above(const Graph& graph, const Consumers& users, ValueId head);

// The scores' (or a head's) scale: Mul by, or Div by, scalar constants.
struct Scaled {
  ValueId scores = kNoValue;  // the value above the scale steps
  double scale = 1.0;
  std::vector<NodeId> nodes;
};

// The scale steps above `value`, each value read by the next step alone.
Scaled scale_above(const Graph& graph, const Consumers& users, ValueId value);

// A head taken from a packed projection [tokens, W] (W >= H) by layout steps and one step that
// selects its part, whose input the other parts read too: a Gather of a constant index (a current
// torch's MultiheadAttention stacks Q, K and V and takes each apart so), one of a Split's pieces, or
// a Slice. Each step with the value it writes on the way to the head, from the packed value down.
struct PackedChain {
  std::vector<std::pair<NodeId, ValueId>> steps;
  ValueId packed = kNoValue;
  Scaled scale;  // scalar scale steps among the steps (Q's and K's, where sink-layouts moved them), not in `steps`
};

// Whether `node` may be a PackedChain's selecting step.
bool selects_part(const Graph& graph, const Node& node);

// The steps above `head`, each value read once but the selecting step's input, up to the first
// value no such step writes or, above the selecting step, `projected` (a projection writes it:
// HF's Conv1D reshapes its rows back by a layout step); `scaled`: scale steps too. Nothing unless
// one step selects.
std::optional<PackedChain> packed_chain_above(const Graph& graph, const Consumers& users, ValueId head, bool scaled,
                                              const std::function<bool(ValueId)>& projected);

// Where the chain takes the packed projection's columns [offset, offset + H) to the head (Q and V
// [B,N,S,d], K [B,N,d,S] `transposed`, or B and N one axis), every element where its heads hold it:
// the offset, or nothing. Each distinct chain proved once per process (every layer repeats one).
std::optional<int64_t> proved_packed_chain_offset(const Graph& graph, const PackedChain& chain, const HeadShape& s,
                                                  bool transposed);

}  // namespace pet::attention
