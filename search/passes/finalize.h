// The finalize stage: after the search, activation fusion, correction fusion, layout-chain
// elimination, weight-only constant folding, CSE and dead-node elimination, to a fixed point.
#pragma once

#include <vector>

#include "core/graph.h"
#include "search/passes/cleanup.h"

namespace pet {

namespace cost {
class CostModel;
}

struct FinalizeOptions {
  bool fold_weights = true;  // the search scores candidates without folding (folded nodes cost nothing)
  // After each round: every shape rule again (the output pet writes), or order and producers only
  // (the search's scoring copies, thousands per second; the passes build new nodes with add_node,
  // which runs their shape rules).
  bool rerun_shape_rules = true;
  // After the passes, each correction takes the lowering this cost model's target runs fastest
  // (search/cost/correction_lowering.h: ort-cpu only), and where that target runs ONNX Runtime's
  // Attention, the program takes it where it prices cheaper (fuse_attention.h); null: neither.
  const cost::CostModel* lowerings_for = nullptr;
};

// Runs the finalize passes until none changes the graph; reports each pass's total changes.
// Finalize's passes in the order each round runs them.
std::span<const NamedPass> finalize_passes();

std::vector<PassResult> finalize(Graph& graph, const FinalizeOptions& options = {});

}  // namespace pet
