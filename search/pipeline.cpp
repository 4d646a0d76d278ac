// The pipeline, stage by stage, as ARCHITECTURE.md lists it.
#include "search/pipeline.h"

#include <chrono>
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
#include "search/finalize.h"
#include "search/rule_matcher.h"
#include "search/search_space.h"

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

const std::vector<std::string> kModes = {"none", "taso", "pet", "pet-eq-only", "pet-neq-only"};

void check_options(const OptimizeOptions& options) {
  if (std::find(kModes.begin(), kModes.end(), options.mode) == kModes.end())
    throw UserError(fmt::format("--mode '{}' is not one of none, taso, pet, pet-eq-only, pet-neq-only", options.mode));
  if (options.beam < 1) throw UserError(fmt::format("--beam {} must be at least 1", options.beam));
  if (options.taso_search != "beam" && options.taso_search != "alpha")
    throw UserError(fmt::format("--taso-search '{}' is not one of beam, alpha", options.taso_search));
  if (!(options.alpha >= 1.0)) throw UserError(fmt::format("--alpha {} must be at least 1.0", options.alpha));
  if (!(options.time_limit_s > 0))
    throw UserError(fmt::format("--time-limit {} must be a positive number of seconds", options.time_limit_s));
  if (options.max_expansions < 1)
    throw UserError(fmt::format("--max-expansions {} must be at least 1", options.max_expansions));
  if (options.max_candidates < 1 || options.mutant_work < 1)
    throw UserError(fmt::format("--max-candidates {} and --mutant-work {} must be at least 1", options.max_candidates,
                                options.mutant_work));
  if (options.scored_per_expansion < 0)
    throw UserError(fmt::format("--scored-per-expansion {} must be 0 (all) or more", options.scored_per_expansion));
  if (options.mutation_rounds < 1 || options.top_k < 1)
    throw UserError(fmt::format("--mutation-rounds {} and --top-k {} must be at least 1", options.mutation_rounds,
                                options.top_k));
}

std::string default_path(const std::string& given, const char* built_in) {
  return given.empty() ? std::string(built_in) : given;
}

cost::CostModel load_cost_model(const OptimizeOptions& options) {
  std::string db = default_path(options.profile_db, PET_DEFAULT_PROFILE_DB);
  bool given = !options.profile_db.empty();
  cost::ProfileDb profile = (given || std::filesystem::exists(db)) ? cost::ProfileDb::load(db) : cost::ProfileDb{};
  return cost::CostModel(cost::load_device(options.device), std::move(profile));
}

search::MoveKinds moves_of(const std::string& mode) {
  if (mode == "pet-neq-only") return {false, false, true};
  if (mode == "pet") return {true, true, true};
  return {true, true, false};  // taso, pet-eq-only
}

// Runs the search the mode asks for; fills `result.search` and `result.transformations`.
Graph run_search(const Graph& cleaned, const OptimizeOptions& options, const cost::CostModel& cost,
                 OptimizeResult& result) {
  std::optional<search::RuleSet> rules;
  std::optional<search::RuleMatcher> matcher;
  search::MoveKinds kinds = moves_of(options.mode);
  if (kinds.rules) {
    rules.emplace(search::RuleSet::load(default_path(options.rules_dir, PET_DEFAULT_RULES_DIR)));
    matcher.emplace(*rules);
  }
  search::SearchSpaceOptions space_options;
  space_options.mutation_rounds = options.mutation_rounds;
  space_options.top_k = options.top_k;
  space_options.generator.examine.seed = options.seed;
  space_options.generation_work = options.mutant_work;
  space_options.scored_per_expansion = options.scored_per_expansion;
  space_options.threads = options.threads;
  search::SearchSpace space(cost, matcher ? &*matcher : nullptr, space_options);

  search::SearchBudget budget{.time_limit_s = options.time_limit_s,
                              .max_expansions = options.max_expansions,
                              .max_candidates = options.max_candidates,
                              .start = std::chrono::steady_clock::now(),
                              .progress = options.progress};
  SearchStats& stats = result.search;
  // Mutant generation may take at most half the time, so the search itself always gets a turn.
  search::SearchBudget generation_budget = budget;
  generation_budget.time_limit_s = budget.time_limit_s / 2;
  space.prepare(cleaned, stats, generation_budget);
  stats.generation_seconds = budget.elapsed();
  budget.report(fmt::format("{} subprograms: {} full and {} partial mutants", stats.subprograms, stats.mutants_full,
                            stats.mutants_partial));
  std::unordered_set<uint64_t> seen;
  search::Program start = space.make_program(cleaned, {});
  search::Program best;
  if (options.mode == "taso" && options.taso_search == "alpha") {
    stats.algorithm = "alpha";
    best = search::alpha_search(start, space, kinds, {options.alpha}, budget, stats, seen);
  } else if (options.mode == "pet") {
    // Fully equivalent moves first, then every move from that beam: pet never ends worse than
    // the same beam over full moves alone (the taso baseline), whatever the partial moves do.
    stats.algorithm = "beam (full moves, then full and partial)";
    search::SearchOutcome full = search::beam_search({start}, space, moves_of("taso"), {options.beam}, budget, stats, seen);
    if (stats.stop_reason == "converged") {
      search::SearchOutcome all = search::beam_search(full.beam, space, kinds, {options.beam}, budget, stats, seen);
      best = search::better(all.best, full.best) ? all.best : full.best;
    } else {
      best = full.best;
    }
  } else {
    stats.algorithm = "beam";
    best = search::beam_search({start}, space, kinds, {options.beam}, budget, stats, seen).best;
  }
  if (matcher) {
    stats.rule_proofs = matcher->proofs_run();
    stats.rule_proofs_failed = matcher->proofs_failed();
  }
  stats.seconds = budget.elapsed();
  result.transformations = best.history;
  return best.graph;
}

}  // namespace

OptimizeResult optimize(const Graph& original, const OptimizeOptions& options) {
  check_options(options);
  cost::CostModel cost = load_cost_model(options);
  OptimizeResult result{original, {}, {}, {}, 0, 0, cost.device().name, {}, {}};
  StageClock clock(result.times);
  clock.end("import", result.graph);

  result.passes = cleanup(result.graph);
  Graph baseline = result.graph;
  finalize(baseline);
  result.cost_original_us = cost.graph_cost(baseline);
  clock.end("cleanup", result.graph);

  if (options.mode == "none") {
    result.search.algorithm = "none";
    result.search.stop_reason = "no-search";
  } else {
    result.graph = run_search(result.graph, options, cost, result);
  }
  clock.end("search", result.graph);

  for (PassResult& pass : finalize(result.graph)) result.passes.push_back(std::move(pass));
  result.cost_optimized_us = cost.graph_cost(result.graph);
  clock.end("finalize", result.graph);

  result.check = differential(original, result.graph, options.seed, options.tolerance);
  clock.end("differential", result.graph);
  return result;
}

}  // namespace pet
