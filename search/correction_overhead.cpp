// The correction overhead under the cost model, measured on the fused form that will run.
#include "search/correction_overhead.h"

#include "core/error.h"
#include "search/finalize.h"

namespace pet::search {
namespace {

double bound_cost(const Graph& program, const std::vector<bool>& weight_inputs, const cost::CostModel& cost) {
  Graph bound = program;
  PET_CHECK(weight_inputs.size() == bound.inputs().size(), "one weight flag per program input");
  for (size_t i = 0; i < weight_inputs.size(); ++i) {
    if (!weight_inputs[i]) continue;
    ValueId input = bound.inputs()[i];
    // Distinct contents, so no pass mistakes two weights for one; the values do not matter to the cost.
    bound.make_constant(input, Tensor::random_f32(bound.value(input).type.shape, i + 1));
  }
  finalize(bound, FinalizeOptions{.fold_weights = false});
  return cost.graph_cost(bound);
}

}  // namespace

CorrectionOverhead correction_overhead(const Graph& mutant, const Graph& corrected, const std::vector<bool>& weight_inputs,
                                       const cost::CostModel& cost) {
  PET_CHECK(mutant.inputs().size() == corrected.inputs().size(), "mutant and corrected program differ in inputs");
  return {bound_cost(mutant, weight_inputs, cost), bound_cost(corrected, weight_inputs, cost)};
}

}  // namespace pet::search
