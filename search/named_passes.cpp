// One table from names to passes; the stages keep their own order and fixed point.
#include "search/named_passes.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "corrector/fuse_corrections.h"
#include "search/finalize.h"
#include "search/passes/eliminate_common_subexpressions.h"
#include "search/passes/eliminate_dead_nodes.h"
#include "search/passes/eliminate_layout_chains.h"
#include "search/passes/fold_batchnorm.h"
#include "search/passes/fold_weights.h"
#include "search/passes/fuse_activations.h"
#include "search/passes/fuse_conv_bias.h"
#include "search/passes/remove_identities.h"
#include "search/passes/sink_layouts.h"

namespace pet {
namespace {

struct NamedPass {
  const char* name;
  int (*run)(Graph&);
};

// Cleanup's passes, then finalize's (eliminate-dead-nodes, in both, once).
constexpr NamedPass kPasses[] = {
    {"remove-identities", remove_identities},
    {"fold-batchnorm", fold_batchnorm},
    {"eliminate-dead-nodes", eliminate_dead_nodes},
    {"fold-weights", fold_weights},
    {"eliminate-common-subexpressions", eliminate_common_subexpressions},
    {"sink-layouts", sink_layouts},
    {"eliminate-layout-chains", eliminate_layout_chains},
    {"fuse-conv-bias", fuse_conv_bias},
    {"fuse-corrections", corrector::fuse_corrections},
    {"fuse-activations", fuse_activations},
};

std::vector<PassResult> run_one(Graph& graph, const std::string& name) {
  if (name == "cleanup") return cleanup(graph);
  if (name == "finalize") return finalize(graph);
  for (const NamedPass& pass : kPasses)
    if (name == pass.name) return {{pass.name, pass.run(graph)}};
  PET_CHECK(false, "run_passes checks the names first");
  return {};
}

}  // namespace

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = {"cleanup", "finalize"};
    for (const NamedPass& pass : kPasses) all.push_back(pass.name);
    return all;
  }();
  return names;
}

std::vector<std::string> parse_pass_list(const std::string& text) {
  const std::vector<std::string>& known = pass_names();
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = std::min(text.find(',', start), text.size());
    std::string name = text.substr(start, end - start);
    if (name.empty())
      throw UserError(fmt::format("--passes '{}' has an empty entry; separate pass names with single commas", text));
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw UserError(fmt::format("--passes: '{}' is not a pass; the passes are {}", name, fmt::join(known, ", ")));
    names.push_back(name);
    start = end + 1;
  }
  return names;
}

std::vector<PassResult> run_passes(Graph& graph, const std::vector<std::string>& names) {
  std::vector<PassResult> results;
  for (const std::string& name : names)
    for (PassResult& result : run_one(graph, name)) results.push_back(std::move(result));
  graph.validate();
  return results;
}

}  // namespace pet
