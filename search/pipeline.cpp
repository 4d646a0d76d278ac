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

#include "core/error.h"
#include "core/text_ir.h"
#include "search/alpha_search.h"
#include "search/beam_search.h"
#include "search/cost/cost_model.h"
#include "search/cost/physical_floor.h"
#include "search/finalize.h"
#include "search/generate_stage.h"
#include "search/measured_ranking.h"
#include "search/rule_matcher.h"
#include "search/search_space.h"
#include "core/structural_hash.h"
#include "kernels/runtime/runtime.h"

namespace pet {
namespace {

class StageClock {
 public:
  explicit StageClock(std::vector<StageTime>& times) : times_(times) {}
  // Records the stage's wall-clock seconds (and returns them); with PET_DEBUG=1 prints the
  // program after it, then `note` (what the stage found besides the program, as IR comments).
  double end(const std::string& stage, const Graph& graph, const std::string& note = "") {
    auto now = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(now - start_).count();
    times_.push_back({stage, seconds});
    start_ = now;
    const char* debug = std::getenv("PET_DEBUG");
    if (debug && std::string(debug) == "1") std::cerr << "// after " << stage << "\n" << print_graph(graph) << note;
    return seconds;
  }

 private:
  std::vector<StageTime>& times_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void check_options(const OptimizeOptions& options) {
  if (options.beam < 1) throw UserError(fmt::format("--beam {} must be at least 1", options.beam));
  if (options.taso_search != "beam" && options.taso_search != "alpha")
    throw UserError(fmt::format("--taso-search '{}' is not one of beam, alpha", options.taso_search));
  if (!(options.alpha >= 1.0)) throw UserError(fmt::format("--alpha {} must be at least 1.0", options.alpha));
  if (!(options.time_limit_s > 0))
    throw UserError(fmt::format("--time-limit {} must be a positive number of seconds", options.time_limit_s));
  if (options.max_expansions < 1)
    throw UserError(fmt::format("--max-expansions {} must be at least 1", options.max_expansions));
  if (options.max_candidates < 1 || options.mutant_work < 1 || options.search_work < 1)
    throw UserError(fmt::format("--max-candidates {}, --mutant-work {} and --search-work {} must be at least 1",
                                options.max_candidates, options.mutant_work, options.search_work));
  if (options.scored_per_expansion < 0)
    throw UserError(fmt::format("--scored-per-expansion {} must be 0 (all) or more", options.scored_per_expansion));
  if (options.select_k < 1 || options.select_runs < 1)
    throw UserError(fmt::format("--select {} and --select-runs {} must be at least 1", options.select_k,
                                options.select_runs));
  if (options.mutation_rounds < 1 || options.top_k < 1)
    throw UserError(fmt::format("--mutation-rounds {} and --top-k {} must be at least 1", options.mutation_rounds,
                                options.top_k));
}

// The target recorded in a replayed DB for this target name and thread count: the one taken on
// this CPU when there are several.
cost::Target replayed_target(const cost::ProfileDb& db, const std::string& path, const std::string& name, int threads) {
  std::vector<cost::Target> recorded = db.measured_targets(name, threads);
  if (recorded.empty())
    throw UserError(fmt::format("--replay: the profile DB '{}' holds no {} times at {} thread{}; run once without "
                                "--replay to measure them, or pass --threads with a recorded count",
                                path, name, threads, threads == 1 ? "" : "s"));
  std::string here = runtime::cpu_model();
  for (const cost::Target& target : recorded)
    if (target.cpu == here) return target;
  return recorded.front();
}

// A measured target's DB: the file given, else the per-user cache; a missing file starts empty
// unless the DB is only replayed.
cost::ProfileDb load_measured_db(const std::string& path, bool replay) {
  if (std::filesystem::exists(path) || replay) return cost::ProfileDb::load(path);
  return cost::ProfileDb{};
}

}  // namespace

void TargetSetup::save_measurements() const {
  if (runtime && cost) cost->profile().save_merged(profile_db, loaded);
}

std::string profile_db_path(const OptimizeOptions& options) {
  if (!options.profile_db.empty()) return options.profile_db;
  return options.target.measured() ? default_measured_profile_db() : std::string(PET_DEFAULT_PROFILE_DB);
}

void open_target(const OptimizeOptions& options, TargetSetup& setup) {
  const TargetSpec& target = options.target;
  setup.profile_db = profile_db_path(options);
  if (!target.measured()) {
    if (options.remeasure)
      throw UserError(fmt::format("--remeasure: target {} is estimated, so nothing is timed; it applies to the "
                                  "measured targets {}",
                                  target.name(), fmt::join(TargetSpec::measured_names(), " and ")));
    bool given = !options.profile_db.empty();
    cost::ProfileDb profile =
        (given || std::filesystem::exists(setup.profile_db)) ? cost::ProfileDb::load(setup.profile_db) : cost::ProfileDb{};
    setup.cost.emplace(cost::load_device(target.name()), std::move(profile));
    return;
  }
  cost::ProfileDb db = load_measured_db(setup.profile_db, options.replay);  // read even to remeasure: fail early
  if (options.remeasure) {
    if (options.replay)
      throw UserError("--remeasure times everything again and --replay times nothing: pass one of them");
    db = cost::ProfileDb{};  // nothing stored to price with; saved over the file's entries at the end
  }
  setup.loaded = db;
  cost::Measurement measurement;
  int threads = target.resolved_threads();
  measurement.picks_correction_lowering = target.picks_correction_lowering_by_measurement();
  if (options.replay) {
    measurement.target = replayed_target(db, setup.profile_db, target.name(), threads);
  } else {
    setup.runtime = target.open_runtime();
    measurement.target = {target.name(), true, threads, setup.runtime->version(), runtime::cpu_model()};
    measurement.runtime = setup.runtime.get();
  }
  measurement.timing.threads = threads;
  measurement.timing.seed = options.seed;
  setup.cost.emplace(cost::load_cpu_fallback(), std::move(db), std::move(measurement));
}

namespace {

// Timing kernels while pet's own threads run would disturb the times: one thread then.
int worker_threads(const OptimizeOptions& options, const cost::CostModel& cost) {
  bool timing = cost.measurement() && cost.measurement()->runtime;
  return options.threads > 0 ? options.threads : (timing ? 1 : 0);
}

}  // namespace

search::GenerateOptions search::generate_options(const OptimizeOptions& options, const cost::CostModel& cost) {
  search::GenerateOptions generate;
  generate.mutation_rounds = options.mutation_rounds;
  generate.top_k = options.top_k;
  generate.generator.examine.seed = options.seed;
  generate.generator.max_placements = options.mutant_placements;
  generate.work = options.mutant_work;
  generate.threads = worker_threads(options, cost);
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
  if (kinds.rules) {
    if (!options.rule_set) rules.emplace(search::RuleSet::load(options.rules_dir.empty() ? std::string(PET_DEFAULT_RULES_DIR) : options.rules_dir));
    matcher.emplace(options.rule_set ? *options.rule_set : *rules);
  }
  search::SearchSpaceOptions space_options;
  space_options.scored_per_expansion = options.scored_per_expansion;
  space_options.stage_sites = options.stage_size;
  space_options.threads = worker_threads(options, cost);
  search::SearchSpace space(cost, matcher ? &*matcher : nullptr, space_options, mutants.subprograms);

  SearchStats& stats = result.search;
  // On a measured target the beam follows its programs' end-to-end times when that is affordable;
  // `reference` (the cleaned input, finalized) is timed beside them.
  search::MeasuredRanking ranking(cost, reference,
                                  {.seed = options.seed, .budget_s = options.measured_search_s, .beam = options.beam},
                                  stats.ranking);
  search::BeamOptions beam;
  beam.width = options.beam;
  if (ranking.on()) beam.rank = [&ranking](std::vector<search::Program>& programs) { ranking.rank(programs); };
  // The wall-clock backstop starts after the generation stage, which --mutant-work bounds; time spent
  // timing kernels or ranked programs is not charged to it.
  search::SearchBudget budget{.time_limit_s = options.time_limit_s,
                              .max_expansions = options.max_expansions,
                              .max_candidates = options.max_candidates,
                              .max_work = options.search_work,
                              .start = std::chrono::steady_clock::now(),
                              .progress = options.progress,
                              .excluded_seconds = [&cost, &stats, before = cost.measuring_seconds()] {
                                return cost.measuring_seconds() - before + stats.ranking.seconds;
                              }};
  budget.report(fmt::format("{} subprograms: {} full and {} partial mutants", mutants.stats.subprograms(),
                            mutants.stats.mutants_full, mutants.stats.mutants_partial));
  std::unordered_set<uint64_t> seen;
  search::Program start = space.make_program(cleaned, {});
  std::vector<search::Program> top;
  if (options.mode == Mode::taso && options.taso_search == "alpha") {
    stats.algorithm = "alpha";
    top = search::alpha_search(start, space, kinds, {options.alpha, static_cast<size_t>(options.beam)}, budget, stats, seen);
  } else if (options.mode == Mode::pet) {
    // Fully equivalent moves first, then every move from that beam: pet never ends worse than
    // the same beam over full moves alone (pet-eq-only), whatever the partial moves do.
    stats.algorithm = "beam (full moves, then full and partial)";
    search::SearchOutcome full =
        search::beam_search({start}, space, moves_of(Mode::pet_eq_only), beam, budget, stats, seen);
    top = full.top;
    if (stats.stop_reason == StopReason::converged) {
      search::SearchOutcome all = search::beam_search(full.beam, space, kinds, beam, budget, stats, seen);
      top.insert(top.end(), all.top.begin(), all.top.end());
    }
  } else {
    stats.algorithm = "beam";
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
  if (selection.source == "estimated" || selection.candidates.empty()) return floor;
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
  result.target.selection = select_fastest(candidates, cost, {options.select_runs, 2, options.seed});
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
  if (!report.calibrated || report.selection.source != "measured" || std::abs(report.calibration_error) < kStaleError ||
      report.sources.replayed < report.sources.measured)
    return "";
  double ratio = report.calibration_error + 1;
  return fmt::format(
      "the profile DB's stored times predict the cleaned input {:.2f}x {} than it runs now ({} of {} kernel groups "
      "replayed): they were likely recorded under other load or machine state, so the search ranked programs by "
      "stale costs (the written model is still the one measured fastest now); to measure afresh, give a new "
      "--profile-db FILE, or --remeasure to time this model's groups again into {}",
      ratio >= 1 ? ratio : 1 / ratio, ratio >= 1 ? "slower" : "faster", report.sources.replayed,
      report.sources.replayed + report.sources.measured + report.sources.estimated, report.profile_db);
}

std::string default_measured_profile_db() {
  if (const char* given = std::getenv("PET_PROFILE_DB"); given && *given) return given;
  std::filesystem::path folder;
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    folder = cache;
  else if (const char* home = std::getenv("HOME"); home && *home)
    folder = std::filesystem::path(home) / ".cache";
  else
    folder = std::filesystem::temp_directory_path();
  return (folder / "pet" / "profile-db.json").string();
}

OptimizeResult optimize(const Graph& original, const OptimizeOptions& options) {
  check_options(options);
  TargetSetup setup;
  open_target(options, setup);
  const cost::CostModel& cost = *setup.cost;
  OptimizeResult result{original, {}, {}, {}, {}, 0, 0, "", {}, {}, {}};
  result.device = cost.measurement() ? cost.measurement()->target.describe() : cost.device().name + " (estimated)";
  if (cost.measurement()) result.target.target = cost.measurement()->target;
  result.target.profile_db = setup.profile_db;
  StageClock clock(result.times);
  clock.end("import", result.graph);

  result.passes = cleanup(result.graph);
  Finalist cleaned{result.graph, {}, {}, 0};
  cleaned.passes = finalize(cleaned.graph, FinalizeOptions{.lowerings_for = &cost});
  if (cost.measured()) {
    result.target.standalone_predicted_us = cost.standalone_graph_cost(cleaned.graph);
    if (options.in_context_calibration) result.target.context = setup.cost->calibrate_in_context(cleaned.graph);
  }
  result.cost_original_us = cleaned.predicted_us = cost.graph_cost(cleaned.graph);
  clock.end("cleanup", result.graph);

  // Mutant generation is bounded by --mutant-work alone, a counted budget, so its mutants are the
  // same for any --jobs and on any machine.
  search::GeneratedMutants mutants;
  search::MoveKinds kinds = moves_of(options.mode);
  if (kinds.full_mutants || kinds.partial_mutants)
    mutants = search::generate_mutants_stage(result.graph, cost, search::generate_options(options, cost));
  result.generation = mutants.stats;
  result.generation.seconds = clock.end("generate", result.graph, generation_note(mutants));

  std::vector<search::Program> top;
  if (options.mode == Mode::none) {
    result.search.algorithm = "none";
    result.search.stop_reason = StopReason::no_search;
  } else {
    top = run_search(result.graph, cleaned.graph, mutants, options, cost, result);
  }
  clock.end("search", result.graph);

  size_t wanted = cost.measured() ? static_cast<size_t>(options.select_k) : 1;
  std::vector<Finalist> programs =
      finalize_programs(std::move(top), cost.measured() ? &cleaned.graph : nullptr, wanted, cost);
  if (cost.measured())
    select_measured(original, cleaned, programs, options, cost, result);
  else
    take_finalist(programs.empty() ? cleaned : programs.front(), result);
  clock.end("finalize", result.graph);

  // The written model keeps a float16 model's storage (core/onnx_export.cpp rounds derived
  // weights to float16), so the check allows float16 rounding for such models.
  result.graph.float16_values = original.float16_values;
  result.graph.float16_weights = original.float16_weights;
  result.check = differential(original, result.graph, options.seed, check_tolerance(original, options.tolerance),
                              options.reference_outputs);
  clock.end("differential", result.graph);
  result.target.sources = cost.sources();
  setup.save_measurements();
  return result;
}

}  // namespace pet
