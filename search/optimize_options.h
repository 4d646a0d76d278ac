// What optimize() is asked to do: each stage's options nested under its name, each default written
// once (in the stage's own struct where it has one), and the hooks of callers in the same process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/default_seed.h"
#include "core/error.h"
#include "search/alpha_search.h"
#include "search/beam_search.h"
#include "search/generate/generate_stage.h"
#include "search/measure/measured_ranking.h"
#include "search/measure/measured_selection.h"
#include "search/measure/target_setup.h"
#include "search/search_budget.h"
#include "search/search_space.h"
#include "search/vocabulary.h"
#include "verifier/differential.h"

namespace pet {
namespace search {
class RuleSet;
}

// The search stage's choices beyond its moves (OptimizeOptions::space): the algorithm, the width,
// the budgets, the rules and the measured ranking's share.
struct SearchOptions {
  TasoSearch taso_search = TasoSearch::alpha;  // taso mode: TASO's α-relaxed best-first search, or the beam
  int beam = search::BeamOptions{}.width;      // programs kept per search round
  double alpha = search::AlphaOptions{}.alpha; // α-search: expand programs costing up to α × the best
  search::SearchLimits limits;                 // over the whole search, after mutant generation
  // Measured targets: the beam follows end-to-end times of its programs when timing them is
  // expected to take at most this many seconds (0: the cost model's predictions order the beam).
  double measured_s = search::RankingOptions{}.budget_s;
  std::string rules_dir;  // rule library folder; empty: the repository's mutant/rules
};

// The select stage on a measured target: the best programs timed end to end against the input.
struct SelectOptions {
  int count = 3;                       // best programs timed
  int runs = SelectionOptions{}.runs;  // timed rounds of that comparison
};

// What a caller in the same process shares with the run, follows it by and stops it with.
struct OptimizeHooks {
  // Called on the search's progress (a terminal shows a line), on the calling thread; may be empty.
  std::function<void(const std::string&)> progress;
  // Asked often, from any of the run's threads (core/error.h): true unwinds the run with Cancelled.
  CancelHook cancelled;
  // The original's outputs per draw, shared with the caller's later checks (none: computed here).
  ReferenceOutputs* reference_outputs = nullptr;
  // A rule library already loaded (search.rules_dir is then not read): callers that optimize many
  // graphs (the harness, the fuzzer) load it once.
  std::shared_ptr<const search::RuleSet> rule_set;
};

// The run's options by the stage that reads them. Two are the run's own and the pipeline writes
// them into the stages: `seed` over target.seed and generate.generator.examine.seed, and the
// hooks' cancellation into generate.generator.cancelled.
struct OptimizeOptions {
  Mode mode = Mode::pet;  // the moves the search makes (search/vocabulary.h)
  // The target stage (and calibrate, save): ort-cpu on all cores unless given (TargetSpec::parse).
  TargetOptions target;
  // The generate stage; its work bounds the elements the mutant generator reads, in all
  // (deterministic). Threads 0: all cores, or one on a measured target that is timing.
  search::GenerateOptions generate = {.work = 2'500'000'000};
  // The search's moves; threads as the generate stage's.
  search::SearchSpaceOptions space;
  SearchOptions search;
  SelectOptions select;
  uint64_t seed = kDefaultSeed;  // seeds every random draw, including the differential check
  Tolerance tolerance;           // the differential check's
  OptimizeHooks hooks;

  // What target setup needs of these options.
  TargetOptions target_options() const {
    TargetOptions options = target;
    options.seed = seed;
    return options;
  }
};

}  // namespace pet
