// ONNX Runtime's fused Attention (core/ops/attention.cpp) in place of an exporter's written-out
// self-attention, for the targets that run it, where the measured cost model prices it cheaper.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace pet {

namespace cost {
class CostModel;
}

// One self-attention as an exporter writes it: x [B,S,Hin] projected three times (MatMul by a
// constant [Hin,H], Add of a constant [H] bias; or once by [Hin,3H] and Split along the last axis,
// as torch's chunk writes it, or Sliced there, as torch's MultiheadAttention does), each
// projection moved into heads by layout ops alone (Q and V to [B,N,S,d], K to [B,N,d,S]; or B and
// N as one axis, [B*N,S,d]), Q and K optionally times or divided by scalar constants (torch's
// decomposed scaled_dot_product_attention scales each by the root of the scale), scores =
// MatMul(Q, K) times or divided by scalar constants, optionally an Add of an attention bias (a
// mask) of a shape broadcasting as [B or 1, N or 1, S or 1, S] (or, the heads a 3-D batch,
// [B*N or 1, S or 1, S]) and, before or after it, a causal mask (a Where of a constant lower- or
// upper-triangular condition and a fill of at most -1e4 or -inf, as GPT-style models write it; an
// additive constant mask 0 on and below the diagonal and such a fill above it is one too), Softmax
// over the last axis, MatMul by V, and layout ops back to [B,S,H]
// or its rows [B*S,H]; every value in between read by the next node alone. x may hold the tokens sequence first, [S,B,Hin] (torch's
// MultiheadAttention), the output then [S,B,H] or [S*B,H]. Each layout chain is checked by moving
// the indices of its input through its nodes' own kernels, so a chain that puts any element
// elsewhere is no site.
struct AttentionSite {
  ValueId input = kNoValue;   // x
  ValueId output = kNoValue;  // the [B,S,H] value (or [S,B,H], or their rows) the fused op computes
  std::vector<NodeId> nodes;  // every node the fused op replaces
  Tensor weights;             // [Hin, 3H]: Q's, K's and V's projections side by side
  Tensor bias;                // [3H]
  int64_t heads = 0;
  double scale = 1.0;                  // of Q K^T
  ValueId attention_bias = kNoValue;   // added to the scaled scores, or none
  Shape attention_bias_view;           // reshaped to this first where it differs (B and N one axis of the scores)
  Shape attention_bias_shape;          // what the fused op reads it as: [B or 1, N or 1, S, S]
  bool causal = false;                 // every key after its query masked (the op's unidirectional)
  double mask_filter_value = 0.0;      // what the causal mask writes or adds there (-inf: the float's lowest)
  bool sequence_first = false;         // x is [S,B,Hin] and the output [S,B,H] (or [S*B,H])
  // Where the rows [S*B,H] go through a row-wise projection (MatMul or Gemm by a constant) and back
  // to [B,S,H'] (torch's batch_first layer): that projection, which the fused op's rows [B*S,H]
  // go through instead, `output` then the [B,S,H'] value; -1 where not.
  NodeId row_projection = -1;
};

// Every site, in graph order; no two share a node.
std::vector<AttentionSite> find_attention_sites(const Graph& graph);

// Replaces each site by one Attention node, which takes over its output's name (an attention bias
// of another shape read through one Expand per bias and shape). Returns the sites fused.
int fuse_attention(Graph& graph, const std::vector<AttentionSite>& sites);

// For a cost model whose target runs ONNX Runtime's ops (Measurement::fuses_onnx_runtime_ops):
// fuses each site whose fusion alone prices the program cheaper than without it (and those together
// cheaper than none), the fused op's kernel group timed like any other (or replayed). Returns the
// sites fused; 0 on other targets.
int pick_attention_fusion(Graph& graph, const cost::CostModel& cost);

}  // namespace pet
