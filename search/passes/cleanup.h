// The cleanup stage: identity removal, Conv+BN folding and dead-node elimination.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

struct PassResult {
  std::string pass;  // kebab-case name, as reports show it
  int changes;       // nodes removed or pairs folded
};

// One pass by its kebab-case name (the stages' tables below; pet-opt --passes looks names up there).
struct NamedPass {
  const char* name;
  int (*run)(Graph&);
};

// Cleanup's passes in the order cleanup() runs them.
std::span<const NamedPass> cleanup_passes();

// Runs the cleanup passes once each in a fixed order and says what each changed.
std::vector<PassResult> cleanup(Graph& graph);

}  // namespace pet
