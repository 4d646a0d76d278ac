// Subprograms are generated in the order of what they could save; each one's rounds run on one
// thread, the subprograms in parallel (on a measured target that times, each round generates in
// parallel and prices in order), and only counted budgets bound them.
#include "search/generate/generate_stage.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/layout.h"
#include "core/parallel.h"
#include "core/structural_hash.h"
#include "corrector/correct.h"
#include "search/generate/bias_split.h"
#include "search/generate/correction_overhead.h"
#include "search/program.h"

namespace pet::search {
namespace {

// One mutant program still open to further rounds, with the evidence chain that led to it.
struct Lineage {
  Graph program;
  std::string family;
  std::string evidence;
  // The first round's base: the subprogram as the model has it (a biased conv as one node), what
  // an emitted correction kernel recomputes; later rounds' bases are mutants (null).
  const Graph* site_program = nullptr;
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
  option.info.kind = TransformationKind::mutant;
  option.info.name = chain(base.family, found.family, " ; ");
  option.info.evidence_kind = EvidenceKind::random_test;
  option.info.evidence = chain(base.evidence, found.verdict.summary(), " ; then ");
  return option;
}

// The correction recomputes boxes with the (wrapped) base program, which equals the original.
// Its overhead is priced later (price_partial), by the cost model on the fused form, not by FLOP
// counts: `wrapped` keeps the mutant as the replacement reads it for that.
MutantOption partial_option(const Lineage& base, const mutant::Mutant& found, const Wrap& wrap, Graph& wrapped) {
  wrapped = wrap(found.program);
  Graph original = wrap(base.program);
  corrector::CorrectedProgram corrected = corrector::correct(original, wrapped, found.verdict);
  MutantOption option;
  // The same interface and values as `original`: the corrections' slices read its inputs by name.
  Graph recomputed = base.site_program ? *base.site_program : std::move(original);
  option.info.corrected_sites = {std::make_shared<const CorrectedSite>(CorrectedSite{std::move(recomputed), corrected.corrections})};
  option.replacement = std::move(corrected.program);
  option.mutant = found.program;
  option.partial = true;
  option.info.kind = TransformationKind::mutant;
  option.info.name = chain(base.family, found.family, " ; ");
  option.info.evidence_kind = EvidenceKind::partial_correction;
  option.info.evidence = chain(base.evidence, found.verdict.summary() + "; " + boxes_text(corrected), " ; then ");
  return option;
}

struct RoundResult {
  std::vector<MutantOption> full, partial;
  std::vector<Graph> partial_wrapped;  // per partial option, its mutant as the replacement reads it
  int64_t full_found = 0, partial_found = 0;
};

// Adds the generation's work to `work`; returns its statistics (which budget, if any, cut it short).
// Nothing is priced here: the partial options' overheads wait for price_partial.
mutant::GeneratorStats run_generator(const Lineage& base, const mutant::GeneratorOptions& options, const Wrap& wrap,
                                     RoundResult& round, int64_t& work) {
  mutant::Generation generation = mutant::generate_mutants(base.program, options);
  work += generation.stats.work;
  for (const mutant::Mutant& found : generation.mutants) {
    if (found.verdict.kind == VerdictKind::Full) {
      round.full.push_back(full_option(base, found, wrap));
      ++round.full_found;
    } else if (found.verdict.kind == VerdictKind::Partial) {
      round.partial.push_back(partial_option(base, found, wrap, round.partial_wrapped.emplace_back()));
      ++round.partial_found;
    }
  }
  return generation.stats;
}

// Each partial option's correction overhead, in the order they were found.
void price_partial(RoundResult& round, const std::vector<bool>& weights, const cost::CostModel& cost) {
  for (size_t i = 0; i < round.partial.size(); ++i)
    round.partial[i].info.correction_overhead =
        correction_overhead(round.partial_wrapped[i], round.partial[i].replacement, weights, cost).ratio();
}

// The Layout node that moves the replacement's activation (its first input) in; null when there is none.
const Node* entry_layout(const Graph& replacement) {
  if (replacement.inputs().empty()) return nullptr;
  ValueId activation = replacement.inputs()[0];
  for (const Node& node : replacement.nodes())
    if (node.op() == "Layout" && node.inputs.size() == 1 && node.inputs[0] == activation) return &node;
  return nullptr;
}

// Which values of the replacement depend on its activation (its first input).
std::vector<bool> from_activation(const Graph& replacement) {
  std::vector<bool> depends(replacement.values().size(), false);
  depends[static_cast<size_t>(replacement.inputs()[0])] = true;
  for (const Node& node : replacement.nodes()) {
    bool reads = std::any_of(node.inputs.begin(), node.inputs.end(),
                             [&](ValueId in) { return in != kNoValue && depends[static_cast<size_t>(in)]; });
    for (ValueId out : node.outputs) depends[static_cast<size_t>(out)] = reads;
  }
  return depends;
}

// The Layout node the replacement's output comes out of: its producer, or reached from it through
// the corrections written over it (Overwrite's base) and elementwise ops with one input that
// depends on the activation (the conv's bias, given back after the layout); null when there is none.
const Node* exit_layout(const Graph& replacement) {
  std::vector<bool> depends = from_activation(replacement);
  NodeId node = replacement.value(replacement.outputs()[0]).producer;
  while (node >= 0 && replacement.node(node).op() != "Layout") {
    const Node& step = replacement.node(node);
    std::vector<ValueId> computed;
    for (ValueId input : step.inputs)
      if (input != kNoValue && depends[static_cast<size_t>(input)]) computed.push_back(input);
    bool passes_through = step.op() == "Overwrite" || (step.def->traits.elementwise && computed.size() == 1);
    if (!passes_through || computed.empty()) return nullptr;
    node = replacement.value(step.op() == "Overwrite" ? step.inputs[0] : computed[0]).producer;
  }
  return node >= 0 ? &replacement.node(node) : nullptr;
}

}  // namespace

std::optional<LayoutEnds> layout_ends(const Graph& replacement) {
  if (replacement.outputs().size() != 1) return std::nullopt;
  const Node* entry = entry_layout(replacement);
  const Node* exit = entry ? exit_layout(replacement) : nullptr;
  if (!exit) return std::nullopt;
  Shape leaving = ops::layout_output_shape(exit->attrs);
  return LayoutEnds{replacement.value(entry->inputs[0]).type.shape, entry->attrs, leaving,
                    ops::layout_inverse(replacement.value(exit->inputs[0]).type.shape, exit->attrs)};
}

bool continues_layout(const LayoutEnds& previous, const LayoutEnds& next) {
  return previous.leaving == next.entering &&
         ops::layouts_move_alike(next.entering, next.entry, previous.exit_undone);
}

namespace {

// One subprogram's generation: the program it is generated in, that program's score and the
// subprogram's share of the work budget.
struct Site {
  const Graph& start;
  double start_score;
  const Subprogram& sub;
  std::optional<int64_t> max_work;
};

// Keeps the `top_k` options that make the cheapest program at the site, cheapest first (ties by
// the replacement's hash), then the cheapest option of each other family and entry layout that
// moves the activation's layout (batch stacking by 2 along H and by 4 along W are two): alone it
// pays two layouts, but a stage move puts it at every conv of a chain, where the layouts between
// neighbours cancel when they match. Each gets its gain over the site's program.
void rank_and_trim(const Site& site, const cost::CostModel& cost, int top_k, std::vector<MutantOption>& options) {
  struct Ranked {
    double cost;
    uint64_t hash;
    size_t index;
  };
  std::vector<Ranked> ranked;
  for (size_t i = 0; i < options.size(); ++i) {
    Graph spliced = splice(site.start, site.sub, options[i].replacement, "rank_");
    ranked.push_back({program_score(spliced, cost), structural_hash(options[i].replacement), i});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    return a.cost != b.cost ? a.cost < b.cost : a.hash < b.hash;
  });
  std::vector<MutantOption> kept;
  std::set<std::string> families;
  for (const Ranked& entry : ranked) {
    MutantOption& option = options[entry.index];
    option.ends = layout_ends(option.replacement);
    std::string variant = option.info.name + " " + (option.ends ? option.ends->entry.to_string() : "");
    bool for_stages = option.ends && !families.count(variant);
    bool in_top = static_cast<int>(kept.size()) < top_k;
    if (!in_top && !for_stages) continue;
    families.insert(variant);
    kept.push_back(std::move(option));
    kept.back().gain_us = site.start_score - entry.cost;
    kept.back().stage_only = !in_top;
  }
  options = std::move(kept);
}

// One subprogram's generation, round by round: each round generates (pure computation, no
// timing), then prices its partial options' corrections and ranks what it found (which a measured
// target may time), and the fully equivalent mutants it keeps are the next round's bases.
class SiteGeneration {
 public:
  SiteGeneration(const Site& site, const GenerateOptions& options)
      : site_(site), options_(options), generator_(options.generator), split_(split_conv_bias(site.sub.program)) {
    if (site.sub.kind == SubprogramKind::group) generator_.templates = options.group_templates;
    for (ValueId input : site.sub.inputs) weights_.push_back(site.start.is_constant(input));
    frontier_.push_back({split_ ? split_->unbiased : site.sub.program, "", "", &site.sub.program});
  }
  SiteGeneration(const SiteGeneration&) = delete;
  SiteGeneration& operator=(const SiteGeneration&) = delete;

  bool done() const { return round_ >= options_.mutation_rounds || frontier_.empty() || cut_; }

  void generate() {
    ++round_;
    result_ = RoundResult{};
    Wrap wrap = [this](const Graph& program) { return split_ ? add_bias_back(site_.sub.program, *split_, program) : program; };
    for (const Lineage& base : frontier_) {
      if (cut_) break;
      if (site_.max_work) generator_.max_work = *site_.max_work - stats_.work;
      cut_ = run_generator(base, generator_, wrap, result_, stats_.work).out_of_work;
    }
    stats_.mutants_full += result_.full_found;
    stats_.mutants_partial += result_.partial_found;
  }

  void price(const cost::CostModel& cost) {
    price_partial(result_, weights_, cost);
    rank_and_trim(site_, cost, options_.top_k, result_.full);
    rank_and_trim(site_, cost, options_.top_k, result_.partial);
    frontier_.clear();
    for (const MutantOption& kept : result_.full)
      if (!kept.stage_only) frontier_.push_back({kept.mutant, kept.info.name, kept.info.evidence, nullptr});
    for (MutantOption& option : result_.full) built_.push_back(std::move(option));
    for (MutantOption& option : result_.partial) built_.push_back(std::move(option));
    result_ = RoundResult{};
  }

  std::vector<MutantOption> take(GenerationStats& stats) {
    stats_.capped += site_.max_work && stats_.work >= *site_.max_work;
    stats = stats_;
    return std::move(built_);
  }

 private:
  Site site_;
  const GenerateOptions& options_;
  mutant::GeneratorOptions generator_;
  std::optional<BiasSplit> split_;
  std::vector<bool> weights_;
  std::vector<Lineage> frontier_;
  RoundResult result_;
  std::vector<MutantOption> built_;
  GenerationStats stats_;
  int round_ = 0;
  bool cut_ = false;
};

// The subprograms in order of what they could save: groups first, then regions by their cost
// times their occurrences (the repeated moves replace every occurrence), ties by key; each key once.
std::vector<Subprogram> distinct_by_share(const Graph& graph, const cost::CostModel& cost,
                                          const PartitionOptions& options) {
  std::vector<Subprogram> subs = subprograms_to_mutate(graph, options);
  std::map<uint64_t, double> share;
  std::vector<uint64_t> keys;
  for (const Subprogram& sub : subs) {
    keys.push_back(subprogram_key(sub));
    share[keys.back()] += cost.graph_cost(sub.program);
  }
  std::vector<size_t> order(subs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    bool group_a = subs[a].kind == SubprogramKind::group, group_b = subs[b].kind == SubprogramKind::group;
    if (group_a != group_b) return group_a;
    double share_a = share[keys[a]], share_b = share[keys[b]];
    return share_a != share_b ? share_a > share_b : keys[a] < keys[b];
  });
  std::vector<Subprogram> sorted;
  std::vector<uint64_t> taken;
  for (size_t i : order) {
    if (std::find(taken.begin(), taken.end(), keys[i]) != taken.end()) continue;
    taken.push_back(keys[i]);
    sorted.push_back(std::move(subs[i]));
  }
  return sorted;
}

}  // namespace

GeneratedMutants generate_mutants_stage(const Graph& start, const cost::CostModel& cost,
                                        const GenerateOptions& options) {
  std::vector<Subprogram> pending = distinct_by_share(start, cost, options.partition);
  double start_score = program_score(start, cost);
  // Groups take two shares of the work (merging parallel ops saves whole launches, and a group's
  // candidates read several weights), regions one; at least eight shares in all.
  int64_t shares = 0;
  for (const Subprogram& sub : pending) shares += sub.kind == SubprogramKind::group ? 2 : 1;
  auto max_work = [&](const Subprogram& sub) -> std::optional<int64_t> {
    if (!options.work) return std::nullopt;
    return *options.work / std::max<int64_t>(shares, 8) * (sub.kind == SubprogramKind::group ? 2 : 1);
  };
  std::vector<std::vector<MutantOption>> built(pending.size());
  std::vector<GenerationStats> counts(pending.size());
  std::vector<std::unique_ptr<SiteGeneration>> sites;
  for (const Subprogram& sub : pending)
    sites.push_back(std::make_unique<SiteGeneration>(Site{start, start_score, sub, max_work(sub)}, options));
  // Only counted budgets bound the generation, never the clock: a subprogram's mutants are then the
  // same whether it was generated alone or next to others (--jobs), on a fast machine or a slow one.
  if (options.times_in_order) {
    // A measured target that times one group at a time: each round generates every subprogram on
    // `threads`, then prices them one after another in order.
    for (;;) {
      std::vector<SiteGeneration*> open;
      for (const auto& site : sites)
        if (!site->done()) open.push_back(site.get());
      if (open.empty()) break;
      for_each_in_parallel(open.size(), thread_count_for(options.threads), [&](size_t i) {
        throw_if_cancelled(options.generator.cancelled);
        open[i]->generate();
      });
      for (SiteGeneration* site : open) {
        throw_if_cancelled(options.generator.cancelled);
        site->price(cost);
      }
    }
  } else {
    for_each_in_parallel(pending.size(), thread_count_for(options.threads), [&](size_t i) {
      throw_if_cancelled(options.generator.cancelled);
      while (!sites[i]->done()) {
        sites[i]->generate();
        sites[i]->price(cost);
      }
    });
  }
  for (size_t i = 0; i < pending.size(); ++i) built[i] = sites[i]->take(counts[i]);
  GeneratedMutants result;
  for (size_t i = 0; i < pending.size(); ++i) {
    GenerationStats& stats = result.stats;
    (pending[i].kind == SubprogramKind::group ? stats.groups : stats.linear) += 1;
    stats.mutants_full += counts[i].mutants_full;
    stats.mutants_partial += counts[i].mutants_partial;
    stats.capped += counts[i].capped;
    stats.work += counts[i].work;
    result.subprograms.push_back({subprogram_key(pending[i]), pending[i].kind, pending[i].location,
                                  std::make_shared<const std::vector<MutantOption>>(std::move(built[i]))});
  }
  return result;
}

}  // namespace pet::search
