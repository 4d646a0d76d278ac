// Fuses an activation into the compute or correction node that produces its input, also when a
// data-movement node stands between them.
#pragma once

#include "core/graph.h"

namespace pet {

// A fusable producer is a one-output node whose op declares the `activation` attribute (Conv,
// MatMul, Gemm, LayoutOverwrite) and has none yet, whose output has one reader and is no graph
// output. Acts on:
//  - a Relu (any unary op core/ops/fused_activation.h can fuse) reading a fusable producer: the
//    producer carries activation="relu" and its output takes the Relu output's name;
//  - a layout-only node with one input (Layout, Transpose, Reshape, Split, ...) reading a fusable
//    producer, each of whose outputs is read only by a Relu of the same kind and is no graph
//    output: the activation commutes with the data movement, so the producer carries it and the
//    layout node's outputs take the Relus' output names (Conv -> Split -> Relu, Relu becomes
//    Conv[relu] -> Split).
// Readers and graph outputs see the same value names as before. Returns the producers fused.
int fuse_activations(Graph& graph);

}  // namespace pet
