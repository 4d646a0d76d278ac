// A program's score: what the search ranks programs by.
#include "search/program.h"

#include "search/cost/correction_lowering.h"
#include "search/passes/finalize.h"

namespace pet::search {

double program_score(const Graph& graph, const cost::CostModel& cost) {
  return score_finalized(finalized_for_scoring(graph), cost);
}

Graph finalized_for_scoring(const Graph& graph) {
  Graph finalized = graph;
  finalize(finalized, FinalizeOptions{.fold_weights = false, .rerun_shape_rules = false});
  return finalized;
}

double score_finalized(Graph finalized, const cost::CostModel& cost) {
  cost::pick_correction_lowerings(finalized, cost);  // finalize's last step when it has a cost model
  return cost.graph_cost(finalized);
}

std::optional<double> score_without_timing(const Graph& finalized, const cost::CostModel& cost) {
  if (cost::picks_correction_lowerings(cost))
    for (const Node& node : finalized.nodes())
      if (cost::is_correction(node)) return std::nullopt;  // the pick prices trials of its lowerings
  return cost.graph_cost_without_timing(finalized);  // the pick changes nothing here
}

}  // namespace pet::search
