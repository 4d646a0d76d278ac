// The float differential check: an optimized graph against its original on seeded random inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

// An element passes when |a - b| <= absolute * scale + relative * |a|, where scale is the
// output's root-mean-square magnitude (at least 1): a float32 sum's rounding error grows with the
// size of its terms, not of its result, so an element that cancels to near zero in a large
// output may differ by more than `absolute` between two summation orders (two BLAS kernels, a
// dilated conv and its de-interleaved form) without either being wrong.
struct Tolerance {
  double absolute = 1e-4;
  double relative = 1e-3;
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
