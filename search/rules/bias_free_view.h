// The bias-free view of a graph for rules over convolutions: the rule library's convs have no
// bias, while every conv of an imported model has one after BatchNorm folding, so rules are
// matched where each bias is a per-channel Add after its conv (conv(x, w, b) = conv(x, w) + b)
// and the biases are fused back into the rewritten convs afterwards.
#pragma once

#include <optional>

#include "core/graph.h"

namespace pet::search {

// Acts on every Conv with a constant f32 bias and no fused activation: it becomes the bias-free
// Conv (same node name) followed by an Add of the bias as a [1,C,1,...] constant, named
// "<conv>/bias", that produces the conv's output value (same name). Other nodes are copied as
// they are. nullopt when the graph has no such conv (the view would be the graph).
std::optional<Graph> bias_free_view(const Graph& graph);

// Fuses every per-channel constant Add that follows a bias-free Conv (or a channel Split of one)
// back into the conv's bias (fuse_conv_bias), a bias the rewrite computed from constants included
// (then the nodes that computed it go); Adds whose conv a rewrite changed so that they no longer
// fit stay as explicit per-channel Adds. Returns the fusions made.
int restore_conv_biases(Graph& graph);

}  // namespace pet::search
