// The search space: rule applications and mutant replacements of whole programs, and their score.
#include "search/search_space.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/parallel.h"
#include "core/structural_hash.h"
#include "corrector/correct.h"
#include "search/bias_split.h"
#include "search/channel_padding.h"
#include "search/correction_overhead.h"
#include "search/finalize.h"

namespace pet::search {
namespace {

// A move's program, built ahead of the sequential pass that counts and deduplicates it.
struct BuiltMove {
  Graph graph;
  Transformation step;
  uint64_t hash = 0;
};

// One mutant program still open to further rounds, with the evidence chain that led to it.
struct Lineage {
  Graph program;
  std::string family;
  std::string evidence;
};

std::string chain(const std::string& earlier, const std::string& later, const char* separator) {
  return earlier.empty() ? later : earlier + separator + later;
}

std::string boxes_text(const corrector::CorrectedProgram& corrected) {
  std::vector<std::string> boxes;
  for (const corrector::Correction& correction : corrected.corrections)
    boxes.push_back(fmt::format("out{}{}", correction.output, correction.box.to_string()));
  return fmt::format("{} correction{} over {}", corrected.corrections.size(),
                     corrected.corrections.size() == 1 ? "" : "s", fmt::join(boxes, " "));
}

// Puts a program of the generator's interface back into the subprogram's (adds a split-off bias).
using Wrap = std::function<Graph(const Graph&)>;

MutantOption full_option(const Lineage& base, const mutant::Mutant& found, const Wrap& wrap) {
  MutantOption option;
  option.replacement = wrap(found.program);
  option.mutant = found.program;
  option.info.kind = "mutant";
  option.info.name = chain(base.family, found.family, " ; ");
  option.info.evidence_kind = "random-test";
  option.info.evidence = chain(base.evidence, found.verdict.summary(), " ; then ");
  return option;
}

// The correction recomputes boxes with the (wrapped) base program, which equals the original;
// its overhead is priced by the cost model on the fused form, not by FLOP counts.
MutantOption partial_option(const Lineage& base, const mutant::Mutant& found, const Wrap& wrap,
                            const std::vector<bool>& weights, const cost::CostModel& cost) {
  Graph wrapped = wrap(found.program);
  corrector::CorrectedProgram corrected = corrector::correct(wrap(base.program), wrapped, found.verdict);
  MutantOption option;
  option.info.correction_overhead = correction_overhead(wrapped, corrected.program, weights, cost).ratio();
  option.replacement = std::move(corrected.program);
  option.mutant = found.program;
  option.partial = true;
  option.info.kind = "mutant";
  option.info.name = chain(base.family, found.family, " ; ");
  option.info.evidence_kind = "partial+correction";
  option.info.evidence = chain(base.evidence, found.verdict.summary() + "; " + boxes_text(corrected), " ; then ");
  return option;
}

struct RoundResult {
  std::vector<MutantOption> full, partial;
  int64_t full_found = 0, partial_found = 0;
};

// Adds the generation's work to `work`; returns its statistics (which budget, if any, cut it short).
mutant::GeneratorStats run_generator(const Lineage& base, const mutant::GeneratorOptions& options, const Wrap& wrap,
                                     const std::vector<bool>& weights, const cost::CostModel& cost, RoundResult& round,
                                     int64_t& work) {
  mutant::Generation generation = mutant::generate_mutants(base.program, options);
  work += generation.stats.work;
  for (const mutant::Mutant& found : generation.mutants) {
    if (found.verdict.kind == VerdictKind::Full) {
      round.full.push_back(full_option(base, found, wrap));
      ++round.full_found;
    } else if (found.verdict.kind == VerdictKind::Partial) {
      round.partial.push_back(partial_option(base, found, wrap, weights, cost));
      ++round.partial_found;
    }
  }
  return generation.stats;
}

}  // namespace

uint64_t subprogram_key(const Subprogram& sub) {
  return structural_hash(sub.program) ^ (sub.kind == "group" ? 0x9e3779b97f4a7c15ULL : 0);
}

SearchSpace::SearchSpace(const cost::CostModel& cost, const RuleMatcher* rules, SearchSpaceOptions options)
    : cost_(cost), rules_(rules), options_(std::move(options)), threads_(thread_count_for(options_.threads)) {}

double SearchSpace::score(const Graph& graph) const {
  Graph finalized = graph;
  finalize(finalized, FinalizeOptions{.fold_weights = false, .rerun_shape_rules = false});
  return cost_.graph_cost(finalized);
}

Program SearchSpace::make_program(Graph graph, std::vector<Transformation> history) const {
  Program program;
  program.hash = structural_hash(graph);
  program.cost = score(graph);
  program.graph = std::move(graph);
  program.history = std::move(history);
  return program;
}

Graph SearchSpace::replace_everywhere(const Graph& graph, const std::vector<const Subprogram*>& sites,
                                      const Graph& replacement, const std::string& prefix, std::string& locations,
                                      int& replaced) const {
  std::vector<const Subprogram*> disjoint;
  std::vector<std::string> prefixes;
  std::vector<bool> taken(graph.nodes().size(), false);
  for (const Subprogram* site : sites) {
    bool overlaps = std::any_of(site->nodes.begin(), site->nodes.end(),
                                [&](NodeId id) { return taken[static_cast<size_t>(id)]; });
    if (overlaps) continue;
    for (NodeId id : site->nodes) taken[static_cast<size_t>(id)] = true;
    locations += (locations.empty() ? "" : "; ") + site->location;
    prefixes.push_back(fmt::format("{}r{}_", prefix, disjoint.size()));
    disjoint.push_back(site);
  }
  replaced = static_cast<int>(disjoint.size());
  return splice_all(graph, disjoint, replacement, prefixes);
}

// Groups first (merging parallel ops saves whole launches), then the single-op regions, each in
// graph order; prepare() orders them by what they could save.
// A subprogram over an empty tensor (a zero dimension) computes nothing, so it is not mutated.
std::vector<Subprogram> SearchSpace::subprograms(const Graph& graph) const {
  std::vector<Subprogram> subs = parallel_groups(graph, options_.partition);
  std::vector<Subprogram> regions = partition(graph, options_.partition);
  subs.insert(subs.end(), std::make_move_iterator(regions.begin()), std::make_move_iterator(regions.end()));
  std::erase_if(subs, [](const Subprogram& sub) { return mutant::has_empty_tensor(sub.program); });
  return subs;
}

// The subprograms in order of what they could save: groups first, then regions by their cost
// times their occurrences (the repeated moves replace every occurrence), ties by key.
std::vector<Subprogram> SearchSpace::subprograms_by_share(const Graph& graph) const {
  std::vector<Subprogram> subs = subprograms(graph);
  std::map<uint64_t, double> share;
  std::vector<uint64_t> keys;
  for (const Subprogram& sub : subs) {
    keys.push_back(subprogram_key(sub));
    share[keys.back()] += cost_.graph_cost(sub.program);
  }
  std::vector<size_t> order(subs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    bool group_a = subs[a].kind == "group", group_b = subs[b].kind == "group";
    if (group_a != group_b) return group_a;
    double share_a = share[keys[a]], share_b = share[keys[b]];
    return share_a != share_b ? share_a > share_b : keys[a] < keys[b];
  });
  std::vector<Subprogram> sorted;
  for (size_t i : order) sorted.push_back(std::move(subs[i]));
  return sorted;
}

void SearchSpace::rank_and_trim(const Graph& start, double start_score, const Subprogram& sub,
                                std::vector<MutantOption>& options) const {
  struct Ranked {
    double cost;
    uint64_t hash;
    size_t index;
  };
  std::vector<Ranked> ranked;
  for (size_t i = 0; i < options.size(); ++i) {
    Graph spliced = splice(start, sub, options[i].replacement, "rank_");
    ranked.push_back({score(spliced), structural_hash(options[i].replacement), i});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    return a.cost != b.cost ? a.cost < b.cost : a.hash < b.hash;
  });
  std::vector<MutantOption> kept;
  for (const Ranked& entry : ranked) {
    if (static_cast<int>(kept.size()) == options_.top_k) break;
    kept.push_back(std::move(options[entry.index]));
    kept.back().gain_us = start_score - entry.cost;
  }
  options = std::move(kept);
}

SearchSpace::Options SearchSpace::build_options(const Graph& start, double start_score, const Subprogram& sub,
                                                std::optional<int64_t> max_work, SearchStats& stats) const {
  Options built;
  mutant::GeneratorOptions generator = options_.generator;
  if (sub.kind == "group") generator.templates = options_.group_templates;
  std::optional<BiasSplit> split = split_conv_bias(sub.program);
  const Graph& source = split ? split->unbiased : sub.program;
  Wrap wrap = [&](const Graph& program) { return split ? add_bias_back(sub.program, *split, program) : program; };
  std::vector<bool> weights;
  for (ValueId input : sub.inputs) weights.push_back(start.is_constant(input));
  std::vector<Lineage> frontier = {{source, "", ""}};
  bool cut = false;
  for (int round = 1; round <= options_.mutation_rounds && !frontier.empty() && !cut; ++round) {
    RoundResult result;
    for (const Lineage& base : frontier) {
      if (cut) break;
      if (max_work) generator.max_work = *max_work - stats.mutant_work;
      mutant::GeneratorStats generated = run_generator(base, generator, wrap, weights, cost_, result, stats.mutant_work);
      cut = generated.out_of_work;
    }
    stats.mutants_full += result.full_found;
    stats.mutants_partial += result.partial_found;
    rank_and_trim(start, start_score, sub, result.full);
    rank_and_trim(start, start_score, sub, result.partial);
    frontier.clear();
    for (const MutantOption& kept : result.full) frontier.push_back({kept.mutant, kept.info.name, kept.info.evidence});
    for (MutantOption& option : result.full) built.mutants.push_back(std::move(option));
    for (MutantOption& option : result.partial) built.mutants.push_back(std::move(option));
  }
  stats.subprograms_capped += max_work && stats.mutant_work >= *max_work;
  return built;
}

void SearchSpace::prepare(const Graph& start, SearchStats& stats) {
  std::vector<Subprogram> pending;
  std::vector<uint64_t> keys;
  for (Subprogram& sub : subprograms_by_share(start)) {
    uint64_t key = subprogram_key(sub);
    if (options_by_subprogram_.count(key) || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(key);
    pending.push_back(std::move(sub));
  }
  stats.subprograms += static_cast<int64_t>(pending.size());
  double start_score = score(start);
  // Groups take two shares of the work (merging parallel ops saves whole launches, and a group's
  // candidates read several weights), regions one; at least eight shares in all.
  int64_t shares = 0;
  for (const Subprogram& sub : pending) shares += sub.kind == "group" ? 2 : 1;
  auto max_work = [&](const Subprogram& sub) -> std::optional<int64_t> {
    if (!options_.generation_work) return std::nullopt;
    return *options_.generation_work / std::max<int64_t>(shares, 8) * (sub.kind == "group" ? 2 : 1);
  };
  std::vector<Options> built(pending.size());
  std::vector<SearchStats> counts(pending.size());
  // Only counted budgets bound the generation, never the clock: a subprogram's mutants are then the
  // same whether it was generated alone or next to others (--jobs), on a fast machine or a slow one.
  for_each_in_parallel(pending.size(), threads_, [&](size_t i) {
    built[i] = build_options(start, start_score, pending[i], max_work(pending[i]), counts[i]);
  });
  for (size_t i = 0; i < pending.size(); ++i) {
    stats.mutants_full += counts[i].mutants_full;
    stats.mutants_partial += counts[i].mutants_partial;
    stats.subprograms_capped += counts[i].subprograms_capped;
    stats.mutant_work += counts[i].mutant_work;
    options_by_subprogram_[keys[i]] = std::make_shared<const Options>(std::move(built[i]));
  }
}

std::vector<Program> SearchSpace::expand(const Program& program, const MoveKinds& kinds, SearchStats& stats,
                                         const std::function<bool(uint64_t)>& is_new, const SearchBudget& budget) const {
  std::vector<Program> next;
  Consider consider = [&](Graph graph, Transformation step, uint64_t hash) {
    if (!budget.spent(stats.candidates).empty()) return false;
    ++stats.candidates;
    if (!is_new(hash)) {
      ++stats.duplicates;
      return false;
    }
    Program candidate;
    candidate.graph = std::move(graph);
    candidate.hash = hash;
    step.cost_before_us = program.cost;
    candidate.history = program.history;
    candidate.history.push_back(std::move(step));
    next.push_back(std::move(candidate));
    return true;
  };
  if (kinds.rules && rules_) add_rule_moves(program, stats, consider);
  if (kinds.full_mutants || kinds.partial_mutants) add_mutant_moves(program, kinds, stats, budget, consider);
  if (kinds.full_mutants && cost_.measured()) add_padding_moves(program, consider);
  score_all(next);
  return next;
}

void SearchSpace::add_rule_moves(const Program& program, SearchStats& stats, const Consider& consider) const {
  for (RuleApplication& applied : rules_->apply_all(program.graph)) {
    ++stats.rule_applications;
    Transformation step{"rule", applied.rule, applied.location, "z3-proof",
                        fmt::format("proved at the matched shapes ({} Z3 resource units) from {} axiom instances: {}",
                                    applied.proof.resource_units, applied.proof.axioms_used.size(),
                                    fmt::join(applied.proof.axioms_used, ", ")),
                        0, 0, 0};
    uint64_t hash = structural_hash(applied.result);
    consider(std::move(applied.result), std::move(step), hash);
  }
}

void SearchSpace::add_padding_moves(const Program& program, const Consider& consider) const {
  std::set<std::pair<NodeId, int64_t>> padded_to;  // (producer, channels after) already offered
  for (int64_t multiple : {8, 16}) {
    for (const PaddingSite& site : channel_padding_sites(program.graph, multiple)) {
      int64_t channels = (site.channels + multiple - 1) / multiple * multiple;
      if (!padded_to.insert({site.producer, channels}).second) continue;
      std::vector<std::string> readers;
      for (NodeId reader : site.readers) readers.push_back(program.graph.node(reader).name);
      Transformation step{"padding", fmt::format("pad-channels-to-{}", multiple),
                          fmt::format("{} -> {}", program.graph.node(site.producer).name, fmt::join(readers, ", ")),
                          "construction",
                          fmt::format("{} zero filters make {} channels; the {} reading conv{} weigh them by zero",
                                      channels - site.channels, channels, readers.size(), readers.size() == 1 ? "" : "s"),
                          0, 0, 0};
      Graph graph = pad_channels(program.graph, site, multiple);
      uint64_t hash = structural_hash(graph);
      consider(std::move(graph), std::move(step), hash);
    }
  }
}

void SearchSpace::add_mutant_moves(const Program& program, const MoveKinds& kinds, const SearchStats& stats,
                                   const SearchBudget& budget, const Consider& consider) const {
  std::string prefix = fmt::format("s{}_", program.history.size() + 1);
  std::vector<Subprogram> subs = subprograms(program.graph);
  std::vector<uint64_t> keys;
  for (const Subprogram& sub : subs) keys.push_back(subprogram_key(sub));
  std::vector<PendingMove> singles = single_site_moves(subs, keys, kinds);
  take_best_first(singles, stats, budget, consider, [&](const PendingMove& move, Transformation& step) {
    step.location = subs[move.site].location;
    return splice(program.graph, subs[move.site], move.option->replacement, prefix);
  });
  // Repeated blocks (ResNet stages, CSRNet's equal convs) take the same mutant everywhere in one
  // move: the layouts between neighbours then cancel, which one site at a time cannot show.
  std::vector<PendingMove> repeats = repeated_block_moves(keys, kinds);
  take_best_first(repeats, stats, budget, consider, [&](const PendingMove& move, Transformation& step) {
    std::vector<const Subprogram*> sites;
    for (size_t s = 0; s < subs.size(); ++s)
      if (keys[s] == move.key) sites.push_back(&subs[s]);
    int replaced = 0;
    Graph graph = replace_everywhere(program.graph, sites, move.option->replacement, prefix, step.location, replaced);
    step.name += fmt::format(" (x{})", replaced);
    return graph;
  });
}

// Each move yields at most one new candidate, so the moves still needed are built together on
// every core and then taken in order: the same candidates as building them one by one.
void SearchSpace::take_best_first(std::vector<PendingMove>& moves, const SearchStats& stats, const SearchBudget& budget,
                                  const Consider& consider, const BuildMove& build) const {
  std::stable_sort(moves.begin(), moves.end(),
                   [](const PendingMove& a, const PendingMove& b) { return a.gain_us > b.gain_us; });
  size_t quota = options_.scored_per_expansion > 0 ? static_cast<size_t>(options_.scored_per_expansion) : moves.size();
  size_t taken = 0, first = 0;
  while (first < moves.size() && taken < quota && budget.spent(stats.candidates).empty()) {
    size_t count = std::min(quota - taken, moves.size() - first);
    std::vector<BuiltMove> built(count);
    for_each_in_parallel(count, threads_, [&](size_t i) {
      built[i].step = moves[first + i].option->info;
      built[i].graph = build(moves[first + i], built[i].step);
      built[i].hash = structural_hash(built[i].graph);
    });
    for (BuiltMove& move : built) {
      if (taken == quota || !budget.spent(stats.candidates).empty()) break;
      taken += consider(std::move(move.graph), std::move(move.step), move.hash);
    }
    first += count;
  }
}

// Which candidates an expansion keeps depends on their hashes only, so scoring them in parallel
// gives the same programs, costs and order as scoring them one by one.
void SearchSpace::score_all(std::vector<Program>& candidates) const {
  for_each_in_parallel(candidates.size(), threads_, [&](size_t i) {
    Program& candidate = candidates[i];
    candidate.cost = score(candidate.graph);
    candidate.history.back().cost_after_us = candidate.cost;
  });
}

// Every allowed mutant at every site, in graph order; each estimated at its option's gain.
std::vector<SearchSpace::PendingMove> SearchSpace::single_site_moves(const std::vector<Subprogram>& subs,
                                                                     const std::vector<uint64_t>& keys,
                                                                     const MoveKinds& kinds) const {
  std::vector<PendingMove> moves;
  for (size_t s = 0; s < subs.size(); ++s) {
    auto found = options_by_subprogram_.find(keys[s]);
    if (found == options_by_subprogram_.end()) continue;
    for (const MutantOption& option : found->second->mutants)
      if (kinds.allows(option.partial)) moves.push_back({option.gain_us, s, keys[s], &option});
  }
  return moves;
}

// Every allowed mutant of every subprogram that occurs more than once, in order of its first
// site; each estimated at its option's gain times its sites.
std::vector<SearchSpace::PendingMove> SearchSpace::repeated_block_moves(const std::vector<uint64_t>& keys,
                                                                        const MoveKinds& kinds) const {
  std::vector<PendingMove> moves;
  std::vector<uint64_t> repeated;
  for (size_t s = 0; s < keys.size(); ++s) {
    auto sites = std::count(keys.begin(), keys.end(), keys[s]);
    if (sites < 2 || std::find(repeated.begin(), repeated.end(), keys[s]) != repeated.end()) continue;
    repeated.push_back(keys[s]);
    auto found = options_by_subprogram_.find(keys[s]);
    if (found == options_by_subprogram_.end()) continue;
    for (const MutantOption& option : found->second->mutants)
      if (kinds.allows(option.partial))
        moves.push_back({option.gain_us * static_cast<double>(sites), s, keys[s], &option});
  }
  return moves;
}

}  // namespace pet::search
