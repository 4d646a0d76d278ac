// correct(): turns a partially equivalent mutant into a program equal to the original by
// recomputing each incorrect output box with the original subprogram on exactly the input
// slices that box reads, and overwriting the mutant's output there (PET's correction kernels).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "verifier/examine.h"

namespace pet::corrector {

struct CorrectOptions {
  // What one more correction costs, in recomputed output elements (a launch, a fused kernel's
  // prologue): boxes merge when one larger recomputation beats several small ones.
  int64_t per_correction_overhead = 128;
};

// The slice of one of the original's graph inputs (or constants) a correction reads.
struct InputSlice {
  std::string value;
  Box region;
};

struct Correction {
  int output = 0;                         // graph output index
  Box box;                                // output box recomputed and overwritten
  std::vector<Box> covers;                // the verdict's incorrect boxes inside `box`
  std::vector<InputSlice> input_slices;   // what the recomputation reads, by value name
  Cost cost;                              // FLOPs and bytes of its nodes (slices, ops, Overwrite)
  double overhead_ratio = 0;              // (cost.flops + cost.bytes) / the mutant's
  std::string summary() const;            // one line
};

struct CorrectedProgram {
  Graph program;                          // the mutant plus correction nodes; same interface
  std::vector<Correction> corrections;
  Cost mutant_cost;
  Cost correction_cost;                   // all corrections together
  double overhead_ratio() const;          // correction FLOPs+bytes / mutant FLOPs+bytes
  std::string summary() const;            // one line per correction, then the total
};

// Acts on every incorrect box of a Partial verdict (a Full one returns the candidate as is).
// UserError when the verdict is Rejected, when its boxes do not fit the outputs, or when the
// two programs differ in interface (input or output count and types).
CorrectedProgram correct(const Graph& original, const Graph& candidate, const Verdict& verdict,
                         const CorrectOptions& options = {});

}  // namespace pet::corrector
