// One table from names to passes; the stages keep their own order and fixed point.
#include "search/passes/named_passes.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "search/passes/finalize.h"

namespace pet {
namespace {

// Cleanup's passes, then finalize's not already named (eliminate-dead-nodes is in both).
const std::vector<NamedPass>& single_passes() {
  static const std::vector<NamedPass> passes = [] {
    std::vector<NamedPass> all(cleanup_passes().begin(), cleanup_passes().end());
    for (const NamedPass& pass : finalize_passes())
      if (std::none_of(all.begin(), all.end(), [&](const NamedPass& p) { return std::string(p.name) == pass.name; }))
        all.push_back(pass);
    return all;
  }();
  return passes;
}

std::vector<PassResult> run_one(Graph& graph, const std::string& name) {
  if (name == "cleanup") return cleanup(graph);
  if (name == "finalize") return finalize(graph);
  for (const NamedPass& pass : single_passes())
    if (name == pass.name) return {{pass.name, pass.run(graph)}};
  PET_CHECK(false, "run_passes checks the names first");
  return {};
}

}  // namespace

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = {"cleanup", "finalize"};
    for (const NamedPass& pass : single_passes()) all.push_back(pass.name);
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
