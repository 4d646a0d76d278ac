// Numeric evidence for axioms and rules: both sides run on the reference executor with the same
// seeded random inputs, once with floats in [-1, 1) and once with small integers (which make
// sums exact, so no float-rounding excuse hides a wrong axiom).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verifier/axioms/axiom.h"
#include "verifier/differential.h"

namespace pet::axioms {

struct SidesComparison {
  bool equal = true;
  double max_abs_error = 0;
  std::string detail;  // the first difference, with the input kind and seed
};

// Both graphs on the same inputs, matched by name (an input of one side only is drawn too).
SidesComparison compare_sides(const Graph& lhs, const Graph& rhs, uint64_t seed);

struct AxiomCheck {
  std::string instance;  // label of the example instance
  uint64_t seed = 0;
  bool passed = true;
  double max_abs_error = 0;
  std::string failure;
};

// Every example of the schema: guard, build, compare sides (seed, seed + 1 for float and integer inputs).
std::vector<AxiomCheck> check_axiom(const AxiomSchema& schema, uint64_t seed);

}  // namespace pet::axioms
