// The optimization pipeline, from an imported graph to a checked optimized graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "search/cleanup.h"
#include "verifier/differential.h"

namespace pet {

struct OptimizeOptions {
  int beam = 8;                // beam width of the search (issue 6)
  std::string mode = "none";   // none | taso | pet (the search modes arrive with issue 6)
  uint64_t seed = 2026;        // seeds every random draw, including the differential check
  Tolerance tolerance;
};

struct StageTime {
  std::string stage;
  double seconds;
};

struct OptimizeResult {
  Graph graph;
  std::vector<PassResult> passes;
  DifferentialReport check;
  std::vector<StageTime> times;
};

// Runs the pipeline. Each stage dumps the textual IR to stderr when PET_DEBUG=1.
OptimizeResult optimize(const Graph& original, const OptimizeOptions& options);

}  // namespace pet
