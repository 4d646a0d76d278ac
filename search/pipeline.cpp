// The pipeline, stage by stage, as ARCHITECTURE.md lists it.
#include "search/pipeline.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/text_ir.h"

namespace pet {
namespace {

class StageClock {
 public:
  explicit StageClock(std::vector<StageTime>& times) : times_(times) {}
  void end(const std::string& stage, const Graph& graph) {
    auto now = std::chrono::steady_clock::now();
    times_.push_back({stage, std::chrono::duration<double>(now - start_).count()});
    start_ = now;
    const char* debug = std::getenv("PET_DEBUG");
    if (debug && std::string(debug) == "1") std::cerr << "// after " << stage << "\n" << print_graph(graph);
  }

 private:
  std::vector<StageTime>& times_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void check_options(const OptimizeOptions& options) {
  if (options.beam < 1) throw UserError(fmt::format("--beam {} must be at least 1", options.beam));
  if (options.mode == "taso" || options.mode == "pet" || options.mode == "pet-eq-only" || options.mode == "pet-neq-only")
    throw UserError(fmt::format("--mode {} needs the search, which this build does not have yet; use --mode none",
                                options.mode));
  if (options.mode != "none")
    throw UserError(fmt::format("--mode '{}' is not one of none, taso, pet, pet-eq-only, pet-neq-only", options.mode));
}

}  // namespace

OptimizeResult optimize(const Graph& original, const OptimizeOptions& options) {
  check_options(options);
  OptimizeResult result{original, {}, {}, {}};
  StageClock clock(result.times);
  clock.end("import", result.graph);

  result.passes = cleanup(result.graph);
  clock.end("cleanup", result.graph);

  result.check = differential(original, result.graph, options.seed, options.tolerance);
  clock.end("differential", result.graph);
  return result;
}

}  // namespace pet
