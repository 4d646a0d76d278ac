// Folds inference BatchNormalization into the convolution that feeds it.
#pragma once

#include "core/graph.h"

namespace pet {

// Acts on Conv -> BatchNormalization pairs where the Conv has no fused activation, its only
// reader is the BN, the Conv weight and bias and all four BN parameters are constants, and the
// BN's channel axis is the Conv's output-channel axis. Uses the model's own epsilon (TASO ignored it). The folded Conv
// takes the BN output's value, so names downstream stay the same. Returns the pairs folded.
int fold_batchnorm(Graph& graph);

}  // namespace pet
