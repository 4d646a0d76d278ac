// Layer normalization as exporters without LayerNormalization write it (opset < 17: PyTorch's BERT):
//   mean = ReduceMean(x, trailing axes); d = x - mean; variance = ReduceMean(Pow(d, 2));
//   y = d / Sqrt(variance + epsilon) * scale (+ bias)
// found from its first ReduceMean, so pet-gpu runs the nine nodes as one layer_norm kernel.
#pragma once

#include <optional>
#include <vector>

#include "core/graph.h"

namespace pet::gpu {

struct LayerNormPattern {
  std::vector<NodeId> nodes;  // ascending; the last writes `output`
  ValueId x = kNoValue, scale = kNoValue, bias = kNoValue;  // bias: kNoValue without the final Add
  ValueId output = kNoValue;
  int axis = 0;  // the first normalized axis (every later one is normalized too)
  float epsilon = 0;
};

// The pattern whose first ReduceMean is `first`, with every intermediate value read only inside it
// and none a graph output, the exponent exactly 2 and epsilon f32 scalar constants, scale and bias
// f32 values `known` marks (per value: a constant, or for a graph not yet finalized a value finalize
// will fold, as a cost model asks) varying along the normalized axes only; nullopt otherwise.
// `readers` is graph.consumers().
std::optional<LayerNormPattern> match_layer_norm(const Graph& graph, const Consumers& readers,
                                                 const std::vector<bool>& known, NodeId first);

}  // namespace pet::gpu
