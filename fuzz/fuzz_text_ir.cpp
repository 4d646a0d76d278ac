// libFuzzer target: arbitrary bytes parsed as textual IR; a parsed graph must print and re-parse to the same text.
//
// A UserError is the expected answer to malformed text; any other exception, a crash, a leak,
// undefined behaviour, or a printed graph that does not parse back to itself is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "core/text_ir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  pet::Graph graph;
  try {
    graph = pet::parse_graph(text);
  } catch (const pet::UserError&) {
    return 0;  // the documented answer to malformed text
  }
  graph.validate();
  std::string printed = pet::print_graph(graph);
  std::string reprinted = pet::print_graph(pet::parse_graph(printed, pet::collect_blobs(graph)));
  if (reprinted != printed) {
    std::fprintf(stderr, "fuzz_text_ir: printing is not a fixed point\n--- printed:\n%s\n--- re-parsed and printed:\n%s\n",
                 printed.c_str(), reprinted.c_str());
    std::abort();
  }
  return 0;
}
