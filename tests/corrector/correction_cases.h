// Seeded partial conv mutants of PET's three correction families (N2H/N2W stacking, dilated rows
// stacked by residue, spatial tiling with halo), shared by the correction property test and the
// tests of the ONNX lowering of corrected programs.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/graph.h"
#include "corrector/correct.h"
#include "mutant/generator.h"

namespace pet::corrector::correction_cases {

using Rng = std::mt19937_64;

struct Family {
  std::string name;                    // stacking, residue, tiling
  std::vector<std::string> templates;  // the mutant templates that build its mutants
};

const std::vector<Family>& families();

// How the conv's weight reaches the programs: a graph input, or a constant (an ONNX initializer).
enum class Weights { Input, Constant };

// A random conv the family's layouts apply to; nullopt when the kernel does not fit. Constant
// weights draw their values from `rng` after the shapes, so Input draws stay as they were.
std::optional<Graph> random_original(const std::string& family, Rng& rng, Weights weights = Weights::Input);

// The generator restricted to the family's templates, keeping partial mutants only.
mutant::GeneratorOptions options_for(const Family& family);

struct Case {
  std::string family;
  Graph original;
  mutant::Mutant mutant;
};

// Round-robin over the families until each has `wanted / 3` partial mutants, taking at most
// `per_original` mutants of one random conv (0: all of them).
std::vector<Case> generate_cases(Rng& rng, int wanted, int per_original = 0, Weights weights = Weights::Input);

// A corrected program with what it came from, named for reports and file names.
struct CorrectedCase {
  std::string name;  // e.g. "07_tiling_constant_weights"
  Graph original;
  Graph mutant;
  std::string mutant_family;  // its template chain, e.g. "batch-to-axis+conv+axis-to-batch-back"
  CorrectedProgram corrected;
};

// The cases the ONNX lowering tests export: `per_family` cases per family with the weight as
// a graph input, then as many with the weight as a constant, drawn from `seed`.
std::vector<CorrectedCase> onnx_lowering_cases(uint64_t seed, int per_family);

// The corrector tests' running example: a SAME 3x3 conv on two 16x8 images with 4 channels...
Graph seam_example_original();
// ...and its N2H mutant: the images stacked along H (node "stack"), one conv ("conv"), unstacked
// into %y ("unstack"); wrong on the rows next to the seam.
Graph seam_example_mutant();

}  // namespace pet::corrector::correction_cases
