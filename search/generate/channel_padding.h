// Channel padding: a conv's output channels grown with zero filters to a multiple of the
// runtime's vector block, and the convs that read them given zero weights for the new channels,
// so every conv of the chain runs on whole vectors. Exact: the new channels hold f(0) for the
// elementwise ops in between, which the readers weigh by zero.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace pet::search {

// A conv whose output reaches only other convs' data input, through elementwise unary ops.
struct PaddingSite {
  NodeId producer = -1;          // the conv whose output channels grow (group 1, constant weights)
  std::vector<NodeId> chain;     // elementwise unary ops between, each the only reader of the last
  std::vector<NodeId> readers;   // the convs reading the chain's end as their input 0 (group 1)
  int64_t channels = 0;          // the producer's output channels today
};

// Every site whose channel count is not a multiple of `multiple`, in graph order.
std::vector<PaddingSite> channel_padding_sites(const Graph& graph, int64_t multiple);

// `graph` with the site's channels padded up to a multiple of `multiple`: Pad nodes on the
// producer's weights and bias (axis 0) and on each reader's weights (axis 1), which finalize folds.
Graph pad_channels(const Graph& graph, const PaddingSite& site, int64_t multiple);

}  // namespace pet::search
