// Cleanup pass order: bypass identities first so BN folding sees Conv -> BN directly.
#include "search/passes/cleanup.h"

#include "search/passes/eliminate_dead_nodes.h"
#include "search/passes/fold_batchnorm.h"
#include "search/passes/remove_identities.h"

namespace pet {

std::span<const NamedPass> cleanup_passes() {
  static constexpr NamedPass kPasses[] = {
      {"remove-identities", remove_identities},
      {"fold-batchnorm", fold_batchnorm},
      {"eliminate-dead-nodes", eliminate_dead_nodes},
  };
  return kPasses;
}

std::vector<PassResult> cleanup(Graph& graph) {
  std::vector<PassResult> results;
  for (const NamedPass& pass : cleanup_passes()) results.push_back({pass.name, pass.run(graph)});
  graph.validate();
  return results;
}

}  // namespace pet
