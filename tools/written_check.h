// pet-opt's final check of the file it is about to put in place: the written bytes re-imported by pet's
// own importer, compared with the original graph on several input draws, and run in the target runtime.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/default_seed.h"
#include "core/graph.h"
#include "kernels/runtime/target_spec.h"
#include "verifier/differential.h"

namespace pet {

struct WrittenCheckOptions {
  uint64_t seed = kDefaultSeed;        // draws use seed, seed + 1, ...
  int draws = 3;
  Tolerance tolerance;
  std::optional<TargetSpec> runtime_target;  // a measured target with its threads, or none: no runtime run
  ReferenceOutputs* reference_outputs = nullptr;  // the original's outputs per draw, kept between checks
};

// The written model run in the target runtime on one draw, against pet's CPU executor on the original.
struct RuntimeCheck {
  std::string target;
  std::string version;      // the runtime's, empty when it could not be opened
  std::string unavailable;  // why the runtime could not be opened (then nothing ran)
  std::string rejected;     // the runtime's refusal of the written model (a failed check)
  uint64_t seed = 0;
  std::vector<OutputDifference> outputs;
  bool passed = true;
  double max_abs_error() const;
};

struct WrittenCheck {
  std::string import_error;                // pet's importer refused the written file (a bug in pet)
  std::vector<DifferentialReport> draws;   // one per seed, in seed order
  std::optional<RuntimeCheck> runtime;
  bool passed = true;
};

// Checks the model written at `path` (the staged file, not yet in place): imported again and compared on
// the draws, then, for a measured target, run in its runtime from the file's bytes, read again once the
// imported graph is gone, so no copy of the written bytes is held beside it (a model's weights are most
// of them). `runtime_bytes` stand in for the file's in the runtime run (a test of a refusal).
WrittenCheck check_written_model(const Graph& original, const std::string& path, const WrittenCheckOptions& options,
                                 const std::optional<std::string>& runtime_bytes = std::nullopt);

// The same for textual IR `text` (parsed back, on the draws; no runtime runs IR).
WrittenCheck check_written_ir(const Graph& original, const std::string& text, const WrittenCheckOptions& options);

// For the report and the terminal: each draw's seed and max error, and the runtime check.
nlohmann::ordered_json written_check_json(const WrittenCheck& check);
std::string written_check_summary(const WrittenCheck& check);

}  // namespace pet
