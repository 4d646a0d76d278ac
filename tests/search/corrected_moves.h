// The corrected partial moves one step from a graph, each finalized as pet-opt writes its program:
// what the kernel-emission tests lower (the h100 estimate takes none on the shared test models).
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"
#include "search/passes/finalize.h"
#include "search/generate/generate_stage.h"
#include "search/search_space.h"

namespace pet::testing {

inline std::vector<search::Program> corrected_moves(const Graph& graph) {
  cost::CostModel cost(cost::load_device("h100"));
  search::GenerateOptions options;
  options.mutation_rounds = 1;
  search::GeneratedMutants mutants = search::generate_mutants_stage(graph, cost, options);
  search::SearchSpace space(cost, nullptr, {}, mutants.subprograms);
  SearchStats stats;
  std::vector<search::Program> moves = space.expand(space.make_program(graph, {}), {false, false, true}, stats,
                                                    [](uint64_t) { return true; }, search::SearchBudget{});
  for (search::Program& move : moves) finalize(move.graph);
  return moves;
}

}  // namespace pet::testing
