// Fuses a per-channel bias addition into the convolution that produces its input.
#pragma once

#include "core/graph.h"

namespace pet {

// Acts on an Add of a bias-free Conv's output (no activation; the Add its only reader; no graph
// output) and a per-channel constant: a constant of shape [1,C,1,...] or [C,1,...], or a Reshape
// of a constant [C] to such a shape (the search adds back split-off biases this way). The Conv
// gains the bias input and takes over the Add output's name. Also acts on a bias-free Conv read
// only by a channel Split whose every piece is read by one such Add (merged parallel convs): the
// Conv gains the joined bias and the pieces take the Adds' names. Returns the fusions made.
int fuse_conv_bias(Graph& graph);

}  // namespace pet
