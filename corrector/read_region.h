// Region reading: for one node and a wanted box of its output, the box of each input that box
// reads (with the halo of windowed ops) and the node that recomputes it from those slices.
#pragma once

#include <optional>
#include <vector>

#include "core/box_grid.h"
#include "core/graph.h"

namespace pet::corrector {

// How to recompute (a superset of) one output box of a node from slices of its inputs.
struct RegionPlan {
  std::vector<std::optional<Box>> inputs;  // box each input is sliced to; nullopt for absent inputs
  Attributes attrs;                        // the recomputing node's attributes (e.g. a conv's new pads)
  std::vector<Box> computed;               // per output: the box the recomputing node produces
};

// Exact for Conv (any spatial rank, strides, dilations, pads, groups), MatMul, Gemm, elementwise
// and identity-like ops; any other op reads its whole inputs and recomputes its whole outputs.
// UserError when the wanted box of a conv reads nothing but padding.
RegionPlan plan_region(const Graph& graph, const Node& node, const Box& wanted);

// The box covering the whole shape.
Box whole_box(const Shape& shape);

// The smallest box containing both.
Box bounding_box(const Box& a, const Box& b);

}  // namespace pet::corrector
