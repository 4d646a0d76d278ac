// The pipeline, stage by stage, as docs/ARCHITECTURE.md lists it.
#include "search/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "core/data_path.h"
#include "core/error.h"
#include "core/heap.h"
#include "core/text_ir.h"
#include "search/alpha_search.h"
#include "search/beam_search.h"
#include "search/cost/cost_model.h"
#include "search/cost/physical_floor.h"
#include "search/passes/finalize.h"
#include "search/generate/generate_stage.h"
#include "search/measure/measured_ranking.h"
#include "search/measure/target_setup.h"
#include "search/rules/rule_matcher.h"
#include "search/search_space.h"
#include "core/structural_hash.h"
#include "kernels/runtime/runtime.h"

namespace pet {
namespace {

class StageClock {
 public:
  StageClock(std::vector<StageTime>& times, const CancelHook& cancelled) : times_(times), cancelled_(cancelled) {}
  // Records the stage's wall-clock seconds (and returns them); with PET_DEBUG=1 prints the
  // program after it, then `note` (what the stage found besides the program, as IR comments).
  // Throws Cancelled when the caller stopped the run meanwhile: the next stage does not start.
  double end(const std::string& stage, const Graph& graph, const std::string& note = "") {
    double seconds = record(stage, graph, note);
    throw_if_cancelled(cancelled_);
    return seconds;
  }
  // The last stage's end: the run is complete, so nothing is cancelled after it.
  void end_run(const std::string& stage, const Graph& graph) { record(stage, graph, ""); }

 private:
  double record(const std::string& stage, const Graph& graph, const std::string& note) {
    auto now = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(now - start_).count();
    times_.push_back({stage, seconds});
    start_ = now;
    const char* debug = std::getenv("PET_DEBUG");
    if (debug && std::string(debug) == "1") std::cerr << "// after " << stage << "\n" << print_graph(graph) << note;
    return seconds;
  }

  std::vector<StageTime>& times_;
  const CancelHook& cancelled_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void check_options(const OptimizeOptions& options) {
  const SearchOptions& search = options.search;
  const search::SearchLimits& limits = search.limits;
  const search::GenerateOptions& generate = options.generate;
  if (search.beam < 1) throw UserError(fmt::format("--beam {} must be at least 1", search.beam));
  if (!(search.alpha >= 1.0)) throw UserError(fmt::format("--alpha {} must be at least 1.0", search.alpha));
  if (!(limits.time_limit_s > 0))
    throw UserError(fmt::format("--time-limit {} must be a positive number of seconds", limits.time_limit_s));
  if (limits.max_expansions < 1)
    throw UserError(fmt::format("--max-expansions {} must be at least 1", limits.max_expansions));
  if (limits.max_candidates < 1 || generate.work.value_or(1) < 1 || limits.max_work < 1)
    throw UserError(fmt::format("--max-candidates {}, --mutant-work {} and --search-work {} must be at least 1",
                                limits.max_candidates,
                                generate.work ? std::to_string(*generate.work) : std::string("unlimited"),
                                limits.max_work));
  if (options.space.scored_per_expansion < 0)
    throw UserError(
        fmt::format("--scored-per-expansion {} must be 0 (all) or more", options.space.scored_per_expansion));
  if (options.select.count < 1 || options.select.runs < 1)
    throw UserError(fmt::format("--select {} and --select-runs {} must be at least 1", options.select.count,
                                options.select.runs));
  if (generate.mutation_rounds < 1 || generate.top_k < 1)
    throw UserError(fmt::format("--mutation-rounds {} and --top-k {} must be at least 1", generate.mutation_rounds,
                                generate.top_k));
}

}  // namespace

namespace {

// Timing kernels while pet's own threads run would disturb the times: a target that times here
// has the stages time one at a time, in an order that does not depend on their threads.
bool times_here(const cost::CostModel& cost) {
  return cost.measurement() && cost.measurement()->runtime && cost.measurement()->runtime->times();
}

}  // namespace

search::GenerateOptions search::generate_options(const OptimizeOptions& options, const cost::CostModel& cost) {
  search::GenerateOptions generate = options.generate;
  generate.generator.examine.seed = options.seed;
  generate.generator.cancelled = options.hooks.cancelled;
  generate.times_in_order = times_here(cost);
  return generate;
}

namespace {

// taso is TASO alone: proved rules, nothing random-tested; pet-eq-only adds pet's fully
// equivalent mutants, pet its corrected partial ones as well.
search::MoveKinds moves_of(Mode mode) {
  switch (mode) {
    case Mode::none: return {false, false, false};
    case Mode::taso: return {true, false, false};
    case Mode::pet_eq_only: return {true, true, false};
    case Mode::pet_neq_only: return {false, false, true};
    case Mode::pet: return {true, true, true};
  }
  PET_CHECK(false, "unknown mode");
  return {};
}

// The generation stage's findings as IR comments, one line per subprogram (PET_DEBUG=1), each
// mutant with what it saved where it was generated (negative: it costs more).
std::string generation_note(const search::GeneratedMutants& mutants) {
  std::string text;
  for (const search::GeneratedSubprogram& sub : mutants.subprograms) {
    std::vector<std::string> names;
    for (const search::MutantOption& option : *sub.options)
      names.push_back(fmt::format("{} ({}, saves {:.1f} us)", option.info.name, to_string(option.info.evidence_kind),
                                  option.gain_us));
    text += fmt::format("// {} [{}]: {}\n", to_string(sub.kind), sub.location,
                        names.empty() ? "no mutants" : fmt::format("{}", fmt::join(names, "; ")));
  }
  return text;
}

// Runs the search the mode asks for over the generated mutants; fills `result.search`. Returns
// the best programs found, best first (at least one).
std::vector<search::Program> run_search(const Graph& cleaned, const Graph& reference,
                                        const search::GeneratedMutants& mutants, const OptimizeOptions& options,
                                        const cost::CostModel& cost, OptimizeResult& result) {
  std::optional<search::RuleSet> rules;
  std::optional<search::RuleMatcher> matcher;
  search::MoveKinds kinds = moves_of(options.mode);
  const std::string& rules_dir = options.search.rules_dir;
  if (kinds.rules) {
    if (!options.hooks.rule_set) rules.emplace(search::RuleSet::load(rules_dir.empty() ? data_path("mutant/rules") : rules_dir));
    search::MatchOptions match;  // matching times nothing
    match.threads = options.space.threads;
    matcher.emplace(options.hooks.rule_set ? *options.hooks.rule_set : *rules, match);
  }
  search::SearchSpaceOptions space_options = options.space;
  space_options.times_in_order = times_here(cost);
  search::SearchSpace space(cost, matcher ? &*matcher : nullptr, space_options, mutants.subprograms);

  SearchStats& stats = result.search;
  // On a measured target the beam follows its programs' end-to-end times when that is affordable;
  // `reference` (the cleaned input, finalized) is timed beside them.
  search::MeasuredRanking ranking(
      cost, reference, {.seed = options.seed, .budget_s = options.search.measured_s, .beam = options.search.beam},
      stats.ranking);
  search::BeamOptions beam;
  beam.width = options.search.beam;
  if (ranking.on()) beam.rank = [&ranking](std::vector<search::Program>& programs) { ranking.rank(programs); };
  // The wall-clock backstop starts after the generation stage, which --mutant-work bounds; time spent
  // timing kernels or ranked programs is not charged to it.
  search::SearchBudget budget{.limits = options.search.limits,
                              .start = std::chrono::steady_clock::now(),
                              .progress = options.hooks.progress,
                              .cancelled = options.hooks.cancelled,
                              .excluded_seconds = [&cost, &stats, before = cost.runtime_seconds()] {
                                return cost.runtime_seconds() - before + stats.ranking.seconds;
                              }};
  budget.report(fmt::format("{} subprograms: {} full and {} partial mutants", mutants.stats.subprograms(),
                            mutants.stats.mutants_full, mutants.stats.mutants_partial));
  std::unordered_set<uint64_t> seen;
  search::Program start = space.make_program(cleaned, {});
  std::vector<search::Program> top;
  if (options.mode == Mode::taso && options.search.taso_search == TasoSearch::alpha) {
    stats.algorithm = SearchAlgorithm::alpha;
    top = search::alpha_search(start, space, kinds, {options.search.alpha, static_cast<size_t>(options.search.beam)},
                               budget, stats, seen);
  } else if (options.mode == Mode::pet) {
    // Fully equivalent moves first, then every move from that beam: pet never ends worse than
    // the same beam over full moves alone (pet-eq-only), whatever the partial moves do.
    stats.algorithm = SearchAlgorithm::full_then_all_beam;
    search::SearchOutcome full =
        search::beam_search({start}, space, moves_of(Mode::pet_eq_only), beam, budget, stats, seen);
    top = full.top;
    if (stats.stop_reason == StopReason::converged) {
      search::SearchOutcome all = search::beam_search(full.beam, space, kinds, beam, budget, stats, seen);
      top.insert(top.end(), all.top.begin(), all.top.end());
    }
  } else {
    stats.algorithm = SearchAlgorithm::beam;
    top = search::beam_search({start}, space, kinds, beam, budget, stats, seen).top;
  }
  std::sort(top.begin(), top.end(), search::better);
  top.erase(std::unique(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.hash == b.hash; }),
            top.end());
  if (matcher) {
    stats.rule_proofs = matcher->proofs_run();
    stats.rule_proofs_failed = matcher->proofs_failed();
    stats.rule_applications_by_rule = matcher->applications_by_rule();
    for (const search::FailedInstance& failed : matcher->failed_instances())
      stats.rule_proofs_failed_detail.push_back(failed.describe());
  }
  stats.seconds = result.generation.seconds + budget.elapsed();
  return top;
}

// A program ready to be written: finalized, with its history and predicted cost.
struct Finalist {
  Graph graph;
  std::vector<PassResult> passes;
  std::vector<Transformation> history;
  double predicted_us = 0;
};

// The first `count` distinct finalized programs (by structural hash), without those equal to
// `baseline` when it is given (it is measured on its own).
std::vector<Finalist> finalize_programs(std::vector<search::Program> programs, const Graph* baseline, size_t count,
                                        const cost::CostModel& cost) {
  std::vector<Finalist> result;
  std::unordered_set<uint64_t> hashes;
  if (baseline) hashes.insert(structural_hash(*baseline));
  for (search::Program& program : programs) {
    if (result.size() >= count) break;
    Finalist finalist{std::move(program.graph), {}, std::move(program.history), 0};
    finalist.passes = finalize(finalist.graph, FinalizeOptions{.lowerings_for = &cost});
    if (!hashes.insert(structural_hash(finalist.graph)).second) continue;
    finalist.predicted_us = cost.graph_cost(finalist.graph);
    result.push_back(std::move(finalist));
  }
  return result;
}

// The final check's tolerance: the requested one, widened to float16's precision (about 1e-3
// per rounding, 1e-2 over a chain, relative to the output's magnitude) for a float16 model.
Tolerance check_tolerance(const Graph& original, const Tolerance& requested) {
  if (original.float16_values.empty() && !original.float16_weights) return requested;
  return {std::max(requested.absolute, 1e-2), std::max(requested.relative, 1e-2)};
}

// Moves a finalist's graph, finalize passes, history and predicted cost into `result`.
void take_finalist(Finalist& chosen, OptimizeResult& result) {
  result.graph = std::move(chosen.graph);
  for (PassResult& pass : chosen.passes) result.passes.push_back(std::move(pass));
  result.transformations = std::move(chosen.history);
  result.cost_optimized_us = chosen.predicted_us;
}

// Takes the finalist the measured selection chose (or the input, or its cleaned form) into `result`.
void take_selected(const Graph& original, Finalist& cleaned, std::vector<Finalist>& programs, OptimizeResult& result) {
  const Selection& selection = result.target.selection;
  if (selection.chosen == 0) {
    result.graph = original;
    result.passes.clear();
    result.cost_optimized_us = selection.candidates[0].predicted_us;
    return;
  }
  take_finalist(selection.chosen == 1 ? cleaned : programs[selection.chosen - 2], result);
}

// A finalist's steps as the selection reports them: "name at location (evidence)", then the finalize
// passes that changed something.
std::vector<std::string> changes_of(const Finalist& finalist) {
  std::vector<std::string> changes;
  for (const Transformation& step : finalist.history)
    changes.push_back(fmt::format("{} at {} ({})", step.name, step.location, to_string(step.evidence_kind)));
  for (const PassResult& pass : finalist.passes)
    if (pass.changes > 0) changes.push_back(fmt::format("pass {} x{}", pass.pass, pass.changes));
  return changes;
}

// The input's distance from the physical floor, and the written model's, from the selection's medians.
FloorReport floor_report(const Graph& original, const cost::CostModel& cost, const Selection& selection) {
  FloorReport floor;
  if (selection.source == SelectionSource::estimated || selection.candidates.empty()) return floor;
  std::optional<cost::PeakRate> rate = cost::peak_rate(cost);
  double flops = cost::dense_flops(original);
  const double input_us = selection.candidates[0].median_us;
  const double written_us = selection.candidates[selection.chosen].median_us;
  if (!rate || flops <= 0 || input_us <= 0 || written_us <= 0) return floor;
  floor.known = true;
  floor.peak = rate->what;
  floor.peak_gflops = rate->gflops;
  floor.replayed = rate->source == cost::CostSource::replayed;
  floor.flops = flops;
  floor.floor_us = flops / (rate->gflops * 1e3);
  floor.input_fraction = floor.floor_us / input_us;
  floor.written_fraction = floor.floor_us / written_us;
  return floor;
}

void select_measured(const Graph& original, Finalist& cleaned, std::vector<Finalist>& programs,
                     const OptimizeOptions& options, const cost::CostModel& cost, OptimizeResult& result) {
  std::vector<SelectionCandidate> candidates = {{"input", &original, cost.graph_cost(original), {}},
                                                {"cleaned", &cleaned.graph, cleaned.predicted_us, {}}};
  for (size_t i = 0; i < programs.size(); ++i)
    candidates.push_back(
        {fmt::format("program {}", i + 1), &programs[i].graph, programs[i].predicted_us, changes_of(programs[i])});
  result.target.selection = select_fastest(candidates, cost, {options.select.runs, 2, options.seed});
  const TimedCandidate& measured_cleaned = result.target.selection.candidates[1];
  if (measured_cleaned.median_us > 0) {
    result.target.calibrated = true;
    result.target.calibration_error = measured_cleaned.predicted_us / measured_cleaned.median_us - 1;
    result.target.standalone_calibration_error =
        result.target.standalone_predicted_us / measured_cleaned.median_us - 1;
  }
  take_selected(original, cleaned, programs, result);
  result.target.floor = floor_report(original, cost, result.target.selection);
}

}  // namespace

std::string stale_profile_note(const TargetReport& report) {
  constexpr double kStaleError = 0.5;
  if (!report.calibrated || report.selection.source != SelectionSource::measured || std::abs(report.calibration_error) < kStaleError ||
      report.sources.replayed < report.sources.measured)
    return "";
  double ratio = report.calibration_error + 1;
  return fmt::format(
      "the profile DB's stored times predict the cleaned input {:.2f}x {} than it runs now ({} of {} kernel groups "
      "replayed): they were likely recorded under other load or machine state, so the search ranked programs by "
      "stale costs (the written model is still the one measured fastest now); to measure afresh, give a new "
      "--profile-db FILE, or --remeasure to time this model's groups again into {}",
      ratio >= 1 ? ratio : 1 / ratio, ratio >= 1 ? "slower" : "faster", report.sources.replayed,
      report.sources.replayed + report.sources.measured + report.sources.estimated + report.sources.refused,
      report.profile_db);
}

namespace {

// One run of the pipeline: what its stages hand on to each other.
struct Run {
  const Graph& original;
  const OptimizeOptions& options;
  TargetSetup setup;
  OptimizeResult result;
  Finalist cleaned;                     // the input after cleanup, finalized as it would be written
  search::GeneratedMutants mutants;
  std::vector<search::Program> top;     // the search's best programs, best first
  std::vector<Finalist> finalists;      // the best of them finalized, distinct
  const cost::CostModel& cost() const { return *setup.cost; }
};

// The profile DB resolved, the runtime opened (or replayed), the cost model made.
void set_up_target(Run& run, const TargetOptions& target) {
  open_target(target, run.setup);
  const cost::CostModel& cost = run.cost();
  run.result.device = cost.measurement() ? cost.measurement()->target.describe() : cost.device().name + " (estimated)";
  if (cost.measurement()) run.result.target.target = cost.measurement()->target;
  run.result.target.profile_db = run.setup.profile_db;
  if (target.spec.timed_elsewhere() && !target.live && run.result.target.target.runtime.empty())
    run.result.target.other_kernels = times_of_other_kernels(run.setup.loaded, target.spec.name());
}

// BN folding, identity and dead-node removal, CSE; the cleaned input finalized as a candidate.
void clean_up(Run& run) {
  run.result.passes = cleanup(run.result.graph);
  run.cleaned = Finalist{run.result.graph, {}, {}, 0};
  run.cleaned.passes = finalize(run.cleaned.graph, FinalizeOptions{.lowerings_for = &run.cost()});
}

// Measured targets: the cost model's scales fitted on the cleaned input run whole; then the
// cleaned input's predicted cost, the search's starting point.
void calibrate(Run& run) {
  const cost::CostModel& cost = run.cost();
  if (cost.measured()) {
    run.result.target.standalone_predicted_us = cost.standalone_graph_cost(run.cleaned.graph);
    if (run.options.target.calibration == Calibration::in_context)
      run.result.target.context = run.setup.cost->calibrate_in_context(run.cleaned.graph);
  }
  run.result.cost_original_us = run.cleaned.predicted_us = cost.graph_cost(run.cleaned.graph);
}

// Mutants of every subprogram, bounded by --mutant-work alone, a counted budget, so they are the
// same for any --jobs and on any machine.
void generate(Run& run) {
  search::MoveKinds kinds = moves_of(run.options.mode);
  if (kinds.full_mutants || kinds.partial_mutants)
    run.mutants = search::generate_mutants_stage(run.result.graph, run.cost(), search::generate_options(run.options, run.cost()));
  run.result.generation = run.mutants.stats;
}

void search_programs(Run& run) {
  if (run.options.mode == Mode::none) {
    run.result.search.algorithm = SearchAlgorithm::none;
    run.result.search.stop_reason = StopReason::no_search;
    return;
  }
  run.top = run_search(run.result.graph, run.cleaned.graph, run.mutants, run.options, run.cost(), run.result);
}

// The best programs finalized: as many as the measured selection times, else the best one.
void finalize_best(Run& run) {
  const cost::CostModel& cost = run.cost();
  size_t wanted = cost.measured() ? static_cast<size_t>(run.options.select.count) : 1;
  run.finalists = finalize_programs(std::move(run.top), cost.measured() ? &run.cleaned.graph : nullptr, wanted, cost);
}

// Measured targets: the input, the cleaned input and the finalists timed end to end, the fastest
// taken (never one slower than the input); estimated targets: the best finalist.
void select_program(Run& run) {
  OptimizeResult& result = run.result;
  if (run.cost().measured()) {
    select_measured(run.original, run.cleaned, run.finalists, run.options, run.cost(), result);
    result.chosen = result.target.selection.candidates[result.target.selection.chosen].label;
    return;
  }
  take_finalist(run.finalists.empty() ? run.cleaned : run.finalists.front(), result);
  result.chosen = result.transformations.empty() ? "cleaned" : "program 1";
}

// The chosen graph against the original on random inputs. The written model keeps a float16
// model's storage (core/onnx_export.cpp rounds derived weights to float16), so the check allows
// float16 rounding for such models.
void check(Run& run) {
  OptimizeResult& result = run.result;
  result.graph.float16_values = run.original.float16_values;
  result.graph.float16_weights = run.original.float16_weights;
  result.check = differential(run.original, result.graph, run.options.seed,
                              check_tolerance(run.original, run.options.tolerance), run.options.hooks.reference_outputs);
}

// What was measured, kept in the profile DB for the next run; what a GPU target's DB lacks, exported.
void save_measurements(Run& run) {
  run.result.target.sources = run.cost().sources();
  run.setup.save_measurements();
  run.result.target.misses = run.setup.write_misses();
  run.result.target.misses_file = run.setup.export_misses;
}

// Every stage in order, each ending on the stage clock (which asks the cancellation hook).
void run_stages(Run& run, StageClock& clock) {
  const Graph& program = run.result.graph;
  set_up_target(run, run.options.target_options());
  clock.end("target", program);
  clean_up(run);
  clock.end("cleanup", program);
  calibrate(run);
  clock.end("calibrate", program);
  generate(run);
  run.result.generation.seconds = clock.end("generate", program, generation_note(run.mutants));
  search_programs(run);
  return_free_heap_to_system();  // the search's candidates, freed (about 1.3 GB on BERT-s128)
  clock.end("search", program);
  finalize_best(run);
  clock.end("finalize", program);
  select_program(run);
  clock.end("select", program);
  check(run);
  clock.end("differential", program);
  save_measurements(run);
  clock.end_run("save", program);
}

// A run cancelled once its target was open keeps what it measured: every time taken is whole (the
// search asks its hook between timings), so the next run replays it instead of timing it again.
void keep_measurements_of_cancelled(const Run& run) {
  if (run.setup.cost) run.setup.save_measurements();
}

}  // namespace

OptimizeResult optimize(const Graph& original, const OptimizeOptions& options) {
  check_options(options);
  throw_if_cancelled(options.hooks.cancelled);
  Run run{original, options, {}, OptimizeResult{original, {}, {}, {}, {}, 0, 0, "", {}, {}, {}, ""}, {}, {}, {}, {}};
  StageClock clock(run.result.times, options.hooks.cancelled);
  try {
    run_stages(run, clock);
  } catch (const Cancelled&) {
    keep_measurements_of_cancelled(run);
    throw;
  }
  return run.result;
}

}  // namespace pet
