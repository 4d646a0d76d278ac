// The search space: rule applications and mutant replacements of whole programs, and their score.
#include "search/search_space.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/layout.h"
#include "core/parallel.h"
#include "core/structural_hash.h"
#include "search/generate/channel_padding.h"

namespace pet::search {
namespace {

// A move's program, built ahead of the sequential pass that counts and deduplicates it.
struct BuiltMove {
  Graph graph;
  Transformation step;
  uint64_t hash = 0;
};

// The corrected sites of an option generated at another site, with the names `program` gives the
// values the corrections read at `site` (its inputs, in the subprogram's order).
std::vector<std::shared_ptr<const CorrectedSite>> at_site(const std::vector<std::shared_ptr<const CorrectedSite>>& generated,
                                                          const Graph& program, const Subprogram& site) {
  std::vector<std::shared_ptr<const CorrectedSite>> placed;
  for (const auto& corrected : generated) {
    CorrectedSite copy = *corrected;
    Graph& original = copy.original;
    PET_CHECK(original.inputs().size() == site.inputs.size(), "a corrected site has the subprogram's interface");
    std::map<std::string, std::string> renamed;
    for (size_t i = 0; i < site.inputs.size(); ++i) {  // through fresh names: two inputs may swap theirs
      ValueId input = original.inputs()[i];
      renamed[original.value(input).name] = program.value(site.inputs[i]).name;
      original.rename_value(input, original.unique_value_name(fmt::format("pet_site_input_{}", i)));
    }
    for (size_t i = 0; i < site.inputs.size(); ++i) {
      ValueId input = original.inputs()[i];
      std::string name = program.value(site.inputs[i]).name;
      if (original.find_value(name)) original.rename_value(*original.find_value(name), original.unique_value_name(name + "_inner"));
      original.rename_value(input, name);
    }
    for (corrector::Correction& correction : copy.corrections)
      for (corrector::InputSlice& slice : correction.input_slices)
        if (auto found = renamed.find(slice.value); found != renamed.end()) slice.value = found->second;
    placed.push_back(std::make_shared<const CorrectedSite>(std::move(copy)));
  }
  return placed;
}

}  // namespace

SearchSpace::SearchSpace(const cost::CostModel& cost, const RuleMatcher* rules, SearchSpaceOptions options,
                         const std::vector<GeneratedSubprogram>& mutants)
    : cost_(cost), rules_(rules), options_(std::move(options)), threads_(thread_count_for(options_.threads)) {
  for (const GeneratedSubprogram& generated : mutants) options_by_subprogram_.emplace(generated.key, generated.options);
}

double SearchSpace::score(const Graph& graph) const { return program_score(graph, cost_); }

Program SearchSpace::make_program(Graph graph, std::vector<Transformation> history) const {
  Program program;
  program.hash = structural_hash(graph);
  program.timing_hash = timing_hash(graph);
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

std::vector<Program> SearchSpace::expand(const Program& program, const MoveKinds& kinds, SearchStats& stats,
                                         const std::function<bool(uint64_t)>& is_new, const SearchBudget& budget) const {
  std::vector<Program> next;
  Consider consider = [&](Graph graph, Transformation step, uint64_t hash) {
    if (budget.spent(stats.candidates, stats.work)) return false;
    ++stats.candidates;
    stats.work += static_cast<int64_t>(graph.nodes().size());
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
  score_all(next, budget.cancelled);
  return next;
}

void SearchSpace::add_rule_moves(const Program& program, SearchStats& stats, const Consider& consider) const {
  for (RuleApplication& applied : rules_->apply_all(program.graph)) {
    ++stats.rule_applications;
    Transformation step{TransformationKind::rule, applied.rule, applied.location, EvidenceKind::z3_proof,
                        fmt::format("proved at the matched shapes ({} Z3 resource units) from {} axiom instances: {}",
                                    applied.proof.resource_units, applied.proof.axioms_used.size(),
                                    fmt::join(applied.proof.axioms_used, ", ")),
                        0, 0, 0, {}};
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
      Transformation step{TransformationKind::padding, fmt::format("pad-channels-to-{}", multiple),
                          fmt::format("{} -> {}", program.graph.node(site.producer).name, fmt::join(readers, ", ")),
                          EvidenceKind::construction,
                          fmt::format("{} zero filters make {} channels; the {} reading conv{} weigh them by zero",
                                      channels - site.channels, channels, readers.size(), readers.size() == 1 ? "" : "s"),
                          0, 0, 0, {}};
      Graph graph = pad_channels(program.graph, site, multiple);
      uint64_t hash = structural_hash(graph);
      consider(std::move(graph), std::move(step), hash);
    }
  }
}

void SearchSpace::add_mutant_moves(const Program& program, const MoveKinds& kinds, const SearchStats& stats,
                                   const SearchBudget& budget, const Consider& consider) const {
  std::string prefix = fmt::format("s{}_", program.history.size() + 1);
  std::vector<Subprogram> subs = subprograms_to_mutate(program.graph, options_.partition);
  std::vector<uint64_t> keys;
  for (const Subprogram& sub : subs) keys.push_back(subprogram_key(sub));
  std::vector<PendingMove> singles = single_site_moves(subs, keys, kinds);
  take_best_first(singles, stats, budget, consider, [&](const PendingMove& move, Transformation& step) {
    step.location = subs[move.site].location;
    step.corrected_sites = at_site(move.option->info.corrected_sites, program.graph, subs[move.site]);
    return splice(program.graph, subs[move.site], move.option->replacement, prefix);
  });
  // Repeated blocks (ResNet stages, CSRNet's equal convs) take the same mutant everywhere in one
  // move: the layouts between neighbours then cancel, which one site at a time cannot show.
  std::vector<PendingMove> repeats = repeated_block_moves(keys, kinds);
  take_best_first(repeats, stats, budget, consider, [&](const PendingMove& move, Transformation& step) {
    std::vector<const Subprogram*> sites;
    step.corrected_sites.clear();
    for (size_t s = 0; s < subs.size(); ++s) {
      if (keys[s] != move.key) continue;
      sites.push_back(&subs[s]);
      for (auto& placed : at_site(move.option->info.corrected_sites, program.graph, subs[s]))
        step.corrected_sites.push_back(std::move(placed));
    }
    int replaced = 0;
    Graph graph = replace_everywhere(program.graph, sites, move.option->replacement, prefix, step.location, replaced);
    step.name += fmt::format(" (x{})", replaced);
    return graph;
  });
  // Stages (a chain of convs joined by Relu and biases) take one layout family at every conv in
  // one move: the layouts between neighbours cancel, so only the stage's entry and exit pay one.
  std::vector<StageMove> stages = stage_moves(program.graph, subs, keys, kinds);
  std::vector<PendingMove> staged;
  for (size_t i = 0; i < stages.size(); ++i) staged.push_back({stages[i].gain_us, i, 0, stages[i].options.front()});
  take_best_first(staged, stats, budget, consider, [&](const PendingMove& move, Transformation& step) {
    const StageMove& stage = stages[move.site];
    std::vector<const Subprogram*> sites;
    std::vector<const Graph*> replacements;
    std::vector<std::string> prefixes, evidence;
    step.location.clear();
    step.corrected_sites.clear();
    for (size_t k = 0; k < stage.sites.size(); ++k) {
      const MutantOption& option = *stage.options[k];
      for (auto& placed : at_site(option.info.corrected_sites, program.graph, subs[stage.sites[k]]))
        step.corrected_sites.push_back(std::move(placed));
      sites.push_back(&subs[stage.sites[k]]);
      replacements.push_back(&option.replacement);
      prefixes.push_back(fmt::format("{}t{}_", prefix, k));
      step.location += (k ? "; " : "") + subs[stage.sites[k]].location;
      evidence.push_back(fmt::format("{}: {}", subs[stage.sites[k]].location, option.info.evidence));
      if (option.partial) step.evidence_kind = EvidenceKind::partial_correction;
    }
    step.name = fmt::format("stage of {}: {}", stage.sites.size(), step.name);
    step.evidence = fmt::format("{}", fmt::join(evidence, " | "));
    return splice_all(program.graph, sites, replacements, prefixes);
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
  while (first < moves.size() && taken < quota && !budget.spent(stats.candidates, stats.work)) {
    size_t count = std::min(quota - taken, moves.size() - first);
    std::vector<BuiltMove> built(count);
    for_each_in_parallel(count, threads_, [&](size_t i) {
      built[i].step = moves[first + i].option->info;
      built[i].graph = build(moves[first + i], built[i].step);
      built[i].hash = structural_hash(built[i].graph);
    });
    for (BuiltMove& move : built) {
      if (taken == quota || budget.spent(stats.candidates, stats.work)) break;
      taken += consider(std::move(move.graph), std::move(move.step), move.hash);
    }
    first += count;
  }
}

// Which candidates an expansion keeps depends on their hashes only, so scoring them in parallel
// gives the same programs, costs and order as scoring them one by one.
void SearchSpace::score_all(std::vector<Program>& candidates, const CancelHook& cancelled) const {
  if (options_.times_in_order) return score_all_timing_in_order(candidates, cancelled);
  for_each_in_parallel(candidates.size(), threads_, [&](size_t i) {
    throw_if_cancelled(cancelled);  // scoring on a measured target times kernel groups: seconds each
    Program& candidate = candidates[i];
    candidate.timing_hash = timing_hash(candidate.graph);  // the order's tie-breaker, beside its cost
    candidate.cost = score(candidate.graph);
    candidate.history.back().cost_after_us = candidate.cost;
  });
}

// A measured target that times one group at a time: every candidate finalized on threads_, those
// whose groups are all known priced there too, then the rest one by one in order. The groups timed,
// and the order they are timed in, are those of scoring one candidate after another (a candidate
// times only groups no earlier candidate timed), and so are the costs.
void SearchSpace::score_all_timing_in_order(std::vector<Program>& candidates, const CancelHook& cancelled) const {
  std::vector<Graph> finalized(candidates.size());
  std::vector<bool> priced(candidates.size(), false);
  for_each_in_parallel(candidates.size(), threads_, [&](size_t i) {
    throw_if_cancelled(cancelled);
    Program& candidate = candidates[i];
    candidate.timing_hash = timing_hash(candidate.graph);
    finalized[i] = finalized_for_scoring(candidate.graph);
    if (std::optional<double> cost = score_without_timing(finalized[i], cost_)) {
      candidate.cost = *cost;
      priced[i] = true;
    }
  });
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!priced[i]) {
      throw_if_cancelled(cancelled);  // scoring on a measured target times kernel groups: seconds each
      candidates[i].cost = score_finalized(std::move(finalized[i]), cost_);
    }
    candidates[i].history.back().cost_after_us = candidates[i].cost;
  }
}

// For each stage window, each family that moves the activation's layout and has an allowed
// option at every site of it, and each of that family's options at the first site: per later
// site, the highest-gain option of the family that enters the layout the previous site's option
// leaves (so the two cancel), or the highest-gain one when none does. Windows in order, families
// by name, first options by gain; a sequence of options already built is not built again.
std::vector<SearchSpace::StageMove> SearchSpace::stage_moves(const Graph& graph, const std::vector<Subprogram>& subs,
                                                             const std::vector<uint64_t>& keys,
                                                             const MoveKinds& kinds) const {
  std::vector<StageMove> moves;
  for (const std::vector<size_t>& window : stage_windows(graph, subs, options_.stage_sites)) {
    // per site, per family: its allowed options, highest gain first
    std::vector<std::map<std::string, std::vector<const MutantOption*>>> families(window.size());
    for (size_t k = 0; k < window.size(); ++k) {
      auto found = options_by_subprogram_.find(keys[window[k]]);
      if (found == options_by_subprogram_.end()) break;
      for (const MutantOption& option : *found->second)
        if (kinds.allows(option.partial) && option.ends)
          families[k][option.info.name].push_back(&option);
      for (auto& [family, options] : families[k])
        std::stable_sort(options.begin(), options.end(),
                         [](const MutantOption* a, const MutantOption* b) { return a->gain_us > b->gain_us; });
    }
    // one move per option of the first site (each entry layout of the family), followed along
    std::set<std::vector<const MutantOption*>> seen;
    for (const auto& [family, firsts] : families[0]) {
      for (const MutantOption* first : firsts) {
        StageMove move{first->gain_us, window, {first}};
        for (size_t k = 1; k < window.size(); ++k) {
          auto found = families[k].find(family);
          if (found == families[k].end()) break;
          const std::vector<const MutantOption*>& options = found->second;
          const MutantOption* chosen = options.front();
          for (const MutantOption* option : options)
            if (continues_layout(*move.options.back()->ends, *option->ends)) {
              chosen = option;
              break;
            }
          move.options.push_back(chosen);
          move.gain_us += chosen->gain_us;
        }
        if (move.options.size() == window.size() && seen.insert(move.options).second) moves.push_back(std::move(move));
      }
    }
  }
  return moves;
}

// Every allowed mutant at every site (but those kept for stage moves only), in graph order; each
// estimated at its option's gain.
std::vector<SearchSpace::PendingMove> SearchSpace::single_site_moves(const std::vector<Subprogram>& subs,
                                                                     const std::vector<uint64_t>& keys,
                                                                     const MoveKinds& kinds) const {
  std::vector<PendingMove> moves;
  for (size_t s = 0; s < subs.size(); ++s) {
    auto found = options_by_subprogram_.find(keys[s]);
    if (found == options_by_subprogram_.end()) continue;
    for (const MutantOption& option : *found->second)
      if (kinds.allows(option.partial) && !option.stage_only) moves.push_back({option.gain_us, s, keys[s], &option});
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
    for (const MutantOption& option : *found->second)
      if (kinds.allows(option.partial) && !option.stage_only)
        moves.push_back({option.gain_us * static_cast<double>(sites), s, keys[s], &option});
  }
  return moves;
}

}  // namespace pet::search
