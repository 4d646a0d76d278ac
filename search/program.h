// A whole program in the search: the graph, its score under the cost model, its canonical hash
// and the transformations that led to it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/graph.h"
#include "search/cost/cost_model.h"
#include "search/search_types.h"

namespace pet::search {

struct Program {
  Graph graph;
  double cost = 0;    // microseconds, after the search-time finalize passes
  uint64_t hash = 0;         // structural_hash(graph): dedup key, the last tie-breaker
  uint64_t timing_hash = 0;  // timing_hash(graph): the tie-breaker, alike in a model and its weight-free form
  std::vector<Transformation> history;
};

// The program's score: its cost after the finalize passes that do not fold weights.
double program_score(const Graph& graph, const cost::CostModel& cost);
// program_score in two steps, so a measured target that times one program at a time finalizes
// on every core: the passes (which time nothing), then the correction lowerings' pick and the cost.
Graph finalized_for_scoring(const Graph& graph);
double score_finalized(Graph finalized, const cost::CostModel& cost);
// score_finalized(finalized, cost) where it times nothing (cost::CostModel::graph_cost_without_timing,
// and no correction whose lowering the target picks by timing); none where it would time.
std::optional<double> score_without_timing(const Graph& finalized, const cost::CostModel& cost);

// The search's order: lower cost first, then fewer transformations (an equal-cost rewrite is not
// worth reporting), then the timing hash, so a model searches as its weight-free form does and
// asks a runtime for the same times, then the hash (never pointer or insertion order).
inline bool better(const Program& a, const Program& b) {
  if (a.cost != b.cost) return a.cost < b.cost;
  if (a.history.size() != b.history.size()) return a.history.size() < b.history.size();
  if (a.timing_hash != b.timing_hash) return a.timing_hash < b.timing_hash;
  return a.hash < b.hash;
}

}  // namespace pet::search
