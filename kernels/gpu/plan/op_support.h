// Which pet-gpu step kind runs each node, asked from the ops' traits and one table of the ops no
// trait describes; a node pet-gpu cannot run is refused with a UserError that names it.
#pragma once

#include <cstdint>
#include <optional>

#include "core/graph.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {

enum class NodeRole : uint8_t {
  step,  // a kernel of `kind` runs it (possibly fused with its neighbours)
  view,  // its output is its input's bytes under another shape: no kernel
  // Left to the caller: no step, no alias, joins nothing (a node computed before the plan runs, or
  // one pet-gpu cannot run that a cost model prices on its own). The plan itself never uses it.
  outside,
};

struct NodeSupport {
  NodeRole role = NodeRole::step;
  StepKind kind = StepKind::elementwise;  // role step
};

// How pet-gpu runs `node`; acts on every node. UserError ("pet-gpu cannot run op 'OP' (node
// 'NAME'); ...; run this model on a CPU target (--target ort-cpu)") for an op outside the GPU's
// set, an arithmetic op on i64 values, a Conv of more than 3 spatial dims, and an identity-like
// op with more than one output.
NodeSupport support_for(const Graph& graph, const Node& node);

// support_for without the refusal: nullopt for a node support_for refuses (a cost model pricing
// graphs pet-gpu may not run asks this on every graph it prices).
std::optional<NodeSupport> runnable_support(const Graph& graph, const Node& node);

}  // namespace pet::gpu
