// The correction overhead under the cost model: what a corrected mutant costs beyond the bare
// mutant, both with their weights bound (weight preparation folds) and after the finalize passes
// (so the corrections are fused into the inverse layout as they will run).
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "search/cost/cost_model.h"

namespace pet::search {

struct CorrectionOverhead {
  double mutant_us = 0;
  double corrected_us = 0;
  std::string lowerings;  // where the target picks: how the corrections are written (cost::correction_lowerings_of)
  std::string corrected_us_by_lowering;  // "slices 2300.0, scatter 2292.0, ..." where the target picks
  double ratio() const { return mutant_us > 0 ? (corrected_us - mutant_us) / mutant_us : 0; }
};

// `weight_inputs[i]` marks the programs' inputs that are weights in the model. Both programs have
// the same interface (internal check).
CorrectionOverhead correction_overhead(const Graph& mutant, const Graph& corrected, const std::vector<bool>& weight_inputs,
                                       const cost::CostModel& cost);

}  // namespace pet::search
