// The correction overhead under the cost model, measured on the fused form that will run.
#include "search/generate/correction_overhead.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "search/cost/correction_lowering.h"
#include "search/passes/finalize.h"

namespace pet::search {
namespace {

// The program with its weights bound, finalized for the target, and its cost.
std::pair<Graph, double> bound_cost(const Graph& program, const std::vector<bool>& weight_inputs,
                                    const cost::CostModel& cost) {
  Graph bound = program;
  PET_CHECK(weight_inputs.size() == bound.inputs().size(), "one weight flag per program input");
  for (size_t i = 0; i < weight_inputs.size(); ++i) {
    if (!weight_inputs[i]) continue;
    ValueId input = bound.inputs()[i];
    // Distinct contents, so no pass mistakes two weights for one; the values do not matter to the cost.
    bound.make_constant(input, Tensor::random_f32(bound.value(input).type.shape, i + 1));
  }
  finalize(bound, FinalizeOptions{.fold_weights = false, .lowerings_for = &cost});
  double us = cost.graph_cost(bound);
  return {std::move(bound), us};
}

}  // namespace

CorrectionOverhead correction_overhead(const Graph& mutant, const Graph& corrected, const std::vector<bool>& weight_inputs,
                                       const cost::CostModel& cost) {
  PET_CHECK(mutant.inputs().size() == corrected.inputs().size(), "mutant and corrected program differ in inputs");
  auto [fused, corrected_us] = bound_cost(corrected, weight_inputs, cost);
  CorrectionOverhead overhead{bound_cost(mutant, weight_inputs, cost).second, corrected_us, "", ""};
  if (!cost::picks_correction_lowerings(cost)) return overhead;
  overhead.lowerings = cost::correction_lowerings_of(fused);
  std::vector<std::string> priced;
  for (const auto& [lowering, us] : cost::cost_by_lowering(fused, cost))
    priced.push_back(fmt::format("{} {:.1f}", ops::to_string(lowering), us));
  overhead.corrected_us_by_lowering = fmt::format("{}", fmt::join(priced, ", "));
  return overhead;
}

}  // namespace pet::search
