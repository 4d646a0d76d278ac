// The float differential check: an optimized graph against its original on seeded random inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

struct Tolerance {
  double absolute = 1e-4;
  double relative = 1e-3;  // an element passes when |a - b| <= absolute + relative * |a|
};

struct OutputDifference {
  std::string name;
  double max_abs_error = 0;
  double max_rel_error = 0;  // |a - b| / max(|a|, 1e-6), worst element
  int64_t elements_outside = 0;
  bool passed = true;
};

struct DifferentialReport {
  uint64_t seed = 0;
  std::vector<OutputDifference> outputs;
  bool passed = true;
  double max_abs_error() const;
};

// Runs both graphs (same input and output types, else UserError) on random_inputs(original,
// seed) and compares output by output.
DifferentialReport differential(const Graph& original, const Graph& optimized, uint64_t seed,
                                const Tolerance& tolerance = {});

// The same comparison for given output tensors (used by tests against reference outputs).
OutputDifference compare_outputs(const std::string& name, const Tensor& expected, const Tensor& actual,
                                 const Tolerance& tolerance);

}  // namespace pet
