// Cleanup pass order: bypass identities first so BN folding sees Conv -> BN directly.
#include "search/cleanup.h"

#include "search/passes/eliminate_dead_nodes.h"
#include "search/passes/fold_batchnorm.h"
#include "search/passes/remove_identities.h"

namespace pet {

std::vector<PassResult> cleanup(Graph& graph) {
  std::vector<PassResult> results;
  results.push_back({"remove-identities", remove_identities(graph)});
  results.push_back({"fold-batchnorm", fold_batchnorm(graph)});
  results.push_back({"eliminate-dead-nodes", eliminate_dead_nodes(graph)});
  graph.validate();
  return results;
}

}  // namespace pet
