// Bias splitting for the mutant generator: its templates build convolutions without bias, so a
// biased conv is mutated as Conv(x, w) and the bias is added back after the mutant (exact, since
// the bias enters linearly after every output position is computed).
#pragma once

#include <optional>

#include "core/graph.h"

namespace pet::search {

struct BiasSplit {
  Graph unbiased;   // the program with the conv's bias input removed (one input fewer)
  int bias_input;   // index of the bias among the original program's inputs
};

// Acts when the program is a single Conv whose third input is a program input; nullopt otherwise.
std::optional<BiasSplit> split_conv_bias(const Graph& program);

// A program with the original interface: `unbiased_replacement` (the interface of `split.unbiased`)
// followed by adding the bias, broadcast over the conv's channel axis.
Graph add_bias_back(const Graph& original, const BiasSplit& split, const Graph& unbiased_replacement);

}  // namespace pet::search
