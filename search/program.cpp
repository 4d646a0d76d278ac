// A program's score: what the search ranks programs by.
#include "search/program.h"

#include "search/passes/finalize.h"

namespace pet::search {

double program_score(const Graph& graph, const cost::CostModel& cost) {
  Graph finalized = graph;
  finalize(finalized, FinalizeOptions{.fold_weights = false, .rerun_shape_rules = false, .lowerings_for = &cost});
  return cost.graph_cost(finalized);
}

}  // namespace pet::search
