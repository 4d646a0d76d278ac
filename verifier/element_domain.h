// The element types a transformation may touch: the one gate every rewrite of the optimizer
// (rules, passes, mutants, the examiner) asks before it fires.
#pragma once

#include <span>

#include "core/graph.h"

namespace pet {

// Whether a node only moves elements: a layout-only or identity-like op with no fused activation.
// Such a node copies each element unchanged, so what holds of it holds for every element type.
bool moves_elements_only(const Node& node);

// The gate. Whether a transformation that reads and writes the values of `nodes` in `graph` may
// fire at their element types:
//  - arithmetic is proved over the reals (Z3), tested over Z_p (the examiner) and on floats (the
//    differential check), so it holds for f32 values only (float16 values are held in f32 and
//    count as f32). Integer arithmetic wraps: Relu(x)*c = Relu(x*c) (c > 0), x*c/c = x, or two
//    Muls by constants merged can change a result that overflows, and f64/bf16 round otherwise;
//  - data movement (every node moves elements only, see above) holds for every element type, so
//    a chain of Transposes or Reshapes over u8 or i32 still cancels or merges.
// A transformation over values of other types leaves them as they are (they stay opaque).
bool may_rewrite(const Graph& graph, std::span<const NodeId> nodes);
// The same for every node of a standalone program (a rule side, a mutant, a region's program).
bool may_rewrite(const Graph& program);
// The same for one node.
bool may_rewrite(const Graph& graph, NodeId node);

}  // namespace pet
