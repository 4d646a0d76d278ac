// The graph passes by their kebab-case names, so a chosen list runs alone (pet-opt --passes and
// its golden before -> after files).
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "search/passes/cleanup.h"

namespace pet {

// The names run_passes accepts: the stages `cleanup` and `finalize`, then every pass of their
// tables (search/passes/cleanup.cpp, search/passes/finalize.cpp) once, in the order they run there.
const std::vector<std::string>& pass_names();

// The names of a comma-separated list ("fold-batchnorm,eliminate-dead-nodes"), in order; UserError
// for an empty entry or a name that is not in pass_names() (naming it and listing them).
std::vector<std::string> parse_pass_list(const std::string& text);

// Runs each named pass once, in the given order (a stage runs whole, finalize to its fixed
// point), and validates the graph; the names come from parse_pass_list. Returns what each pass
// changed, in the order run.
std::vector<PassResult> run_passes(Graph& graph, const std::vector<std::string>& names);

}  // namespace pet
