// Layout-chain elimination: data movement that undoes itself is removed, also across
// elementwise ops, and consecutive Layout ops become one.
#pragma once

#include "core/graph.h"

namespace pet {

// A layout node here is a node of a layout-only op (Layout, Transpose, Reshape, Flatten, Squeeze,
// Unsqueeze, Slice, ...) with one present input, one output and no fused activation. Acts on:
//  - a layout node whose output equals its input, or two consecutive layout nodes whose
//    composition is the identity: readers of the last output read the first input;
//  - a layout node, then one or more unary elementwise nodes (each output read only by the next
//    node), then a layout node that undoes the first: the elementwise nodes are rebuilt on the
//    first input and the layout pair disappears (Layout -> Relu -> inverse Layout becomes Relu);
//  - two consecutive Layout nodes, the first read only by the second, whose composition is one
//    Layout: they become that Layout.
// Whether a composition is the identity is decided exactly, by running the layout nodes' reference
// kernels on two iota tensors of the input shape (inputs of at most 2^24 elements). Values keep
// the name of the output they replace; a graph output fed by a graph input or constant is left
// alone. Returns how many chains it rewrote.
int eliminate_layout_chains(Graph& graph);

}  // namespace pet
