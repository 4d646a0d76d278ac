// The node and output lines of a printed graph, for before → after tests of graph passes.
#pragma once

#include <string>

#include "core/text_ir.h"

namespace pet::testing {

// Node and output lines of print_graph (header, inputs and constants left out), unindented.
inline std::string node_lines(const Graph& graph) {
  std::string printed = print_graph(graph), result;
  size_t start = 0;
  while (start < printed.size()) {
    size_t end = printed.find('\n', start);
    std::string line = printed.substr(start, end - start);
    if (line.rfind("  %", 0) == 0 || line.rfind("  output", 0) == 0) result += line.substr(2) + "\n";
    start = end + 1;
  }
  return result;
}

}  // namespace pet::testing
