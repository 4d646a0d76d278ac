// The cleanup stage: identity removal, Conv+BN folding and dead-node elimination.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

struct PassResult {
  std::string pass;  // kebab-case name, as reports show it
  int changes;       // nodes removed or pairs folded
};

// Runs the cleanup passes once each in a fixed order and says what each changed.
std::vector<PassResult> cleanup(Graph& graph);

}  // namespace pet
