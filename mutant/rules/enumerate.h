// Enumerates every program of up to max_ops rule-op steps over a shape class's input pool (one
// step order per DAG, no step equal to an existing value) and fingerprints each over Z_p.
#pragma once

#include <cstdint>
#include <vector>

#include "mutant/rules/program.h"

namespace pet::rules {

struct EnumerationOptions {
  int max_ops = 3;
  int64_t max_elements = 128;  // larger intermediate tensors are not enumerated
  uint64_t seed = 1;           // the pool inputs' random contents over Z_p
};

struct EnumeratedProgram {
  Program program;
  uint64_t key = 0;                     // program_key under the identity renaming
  uint64_t fingerprint = 0;             // fingerprint_of(output_hashes)
  std::vector<uint64_t> output_hashes;  // data hash of each program output, in output order
  std::vector<uint64_t> value_hashes;   // data hash of every value, by value number
};

// Programs with no steps (one or two non-scalar pool inputs as outputs) come first, then the
// rest in depth-first order; the result depends only on the class and the options.
std::vector<EnumeratedProgram> enumerate_programs(const ShapeClass& shape_class, const EnumerationOptions& options);

}  // namespace pet::rules
