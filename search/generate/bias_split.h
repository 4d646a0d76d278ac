// Bias splitting for the mutant generator: its templates build convolutions without bias, so
// biased convs are mutated as Conv(x, w) and each bias is added back after the mutant (exact,
// since a bias enters linearly after every output position is computed).
#pragma once

#include <optional>
#include <vector>

#include "core/graph.h"

namespace pet::search {

struct BiasSplit {
  Graph unbiased;                 // the program with the convs' bias inputs removed
  std::vector<int> bias_inputs;   // per program output: index of its bias among the program's inputs
};

// Acts when every node of the program is a Conv with a bias that is a program input read by that
// conv alone, and the program's outputs are those convs' outputs (one conv, or a parallel group);
// nullopt otherwise.
std::optional<BiasSplit> split_conv_bias(const Graph& program);

// A program with the original interface: `unbiased_replacement` (the interface of
// `split.unbiased`) followed by adding each output's bias, broadcast over the channel axis.
Graph add_bias_back(const Graph& original, const BiasSplit& split, const Graph& unbiased_replacement);

}  // namespace pet::search
