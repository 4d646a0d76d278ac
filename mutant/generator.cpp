// Depth-bounded, stage-ordered search over template applications, with pruning and examination.
#include "mutant/generator.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/ops/linear_facets.h"
#include "core/registry.h"
#include "core/structural_hash.h"
#include "mutant/layout_identity.h"

namespace pet::mutant {
namespace {

// A partial candidate: nodes are added in stage order (Pre, Compute, Post) and, within a stage,
// in non-decreasing order of their first operand, so each program is built one way only.
struct SearchState {
  Graph graph;
  std::vector<Stage> stage;  // per value: Pre (inputs and transforms) or Post (after a compute op)
  std::vector<int> depth;    // per value: ops on the longest path from an input
  std::vector<Role> role;    // per value: activation or weight, inherited through transforms
  std::vector<int> uses;     // per value: how many nodes read it
  std::vector<std::string> family;  // per node: its template
  Stage last_stage = Stage::Pre;
  ValueId last_first_operand = -1;
  int computes = 0;
  int pre_ops = 0;
  int post_ops = 0;
};

class Search {
 public:
  Search(const Graph& original, const GeneratorOptions& options)
      : original_(original), options_(options), reference_(original, options.examine.seed) {
    for (const Node& node : original.nodes())
      if (node.def->traits.compute_heavy) {
        compute_nodes_.push_back(&node);
        context_weights_.push_back(original.value(node.inputs.at(1)).type);
      }
    for (ValueId id : original.outputs()) targets_.push_back(original.value(id).type);
    max_computes_ = std::max<int>(2, static_cast<int>(compute_nodes_.size()));
    for (const Node* node : compute_nodes_)
      for (size_t i = 1; i < node->inputs.size(); ++i) weight_values_.insert(node->inputs[i]);
    seen_.insert(structural_hash(original));
  }

  Generation run() {
    auto start = std::chrono::steady_clock::now();
    result_.stats.empty_tensors = has_empty_tensor(original_);
    if (result_.stats.empty_tensors) return std::move(result_);
    SearchState root;
    for (ValueId id : original_.inputs()) root.graph.add_input(original_.value(id).name, original_.value(id).type);
    for (const Value& value : original_.values())
      if (value.constant) root.graph.add_constant(value.name, *value.constant);
    root.graph.name = original_.name + "_mutant";
    root.graph.opset = original_.opset;
    root.stage.assign(root.graph.values().size(), Stage::Pre);
    root.depth.assign(root.graph.values().size(), 0);
    root.uses.assign(root.graph.values().size(), 0);
    for (const Value& value : root.graph.values()) {
      std::optional<ValueId> source = original_.find_value(value.name);
      root.role.push_back(source && weight_values_.count(*source) ? Role::Weight : Role::Activation);
    }
    expand(root, 0);
    result_.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sort_mutants();
    return std::move(result_);
  }

 private:
  void expand(SearchState& state, int ops) {
    if (ops == options_.max_ops || out_of_budget()) return;
    for (const MutantTemplate& tmpl : options_.templates) {
      if (tmpl.stage < state.last_stage) continue;
      if (tmpl.stage == Stage::Compute && state.computes >= max_computes_) continue;
      if (tmpl.stage == Stage::Post && state.computes == 0) continue;
      if (tmpl.stage == Stage::Pre && state.pre_ops >= options_.max_pre_ops) continue;
      if (tmpl.stage == Stage::Post && state.post_ops >= options_.max_post_ops) continue;
      if (tmpl.stage == Stage::Post && state.last_stage != Stage::Post && !transforms_consumed(state)) {
        ++result_.stats.unused_transforms;
        continue;
      }
      for (int arity = tmpl.min_arity; arity <= tmpl.max_arity; ++arity) try_operands(state, ops, tmpl, arity);
    }
  }

  std::vector<ValueId> eligible(const SearchState& state, Stage stage) const {
    Stage wanted = stage == Stage::Post ? Stage::Post : Stage::Pre;
    std::vector<ValueId> values;
    for (size_t v = 0; v < state.stage.size(); ++v)
      if (state.stage[v] == wanted) values.push_back(static_cast<ValueId>(v));
    return values;
  }

  void try_operands(SearchState& state, int ops, const MutantTemplate& tmpl, int arity) {
    std::vector<ValueId> pool = eligible(state, tmpl.stage);
    std::vector<size_t> pick(static_cast<size_t>(arity), 0);
    while (true) {
      std::vector<ValueId> operands;
      for (size_t i : pick) operands.push_back(pool.empty() ? kNoValue : pool[i]);
      if (!pool.empty() && distinct(operands) && in_order(state, tmpl, operands) &&
          (!tmpl.ascending_operands || std::is_sorted(operands.begin(), operands.end())) && roles_fit(state, tmpl, operands) &&
          compute_allowed(state, tmpl, operands)) {
        if (extends_chain(state, tmpl, operands)) apply(state, ops, tmpl, operands);
        else ++result_.stats.branching_transforms;
      }
      size_t position = pick.size();
      while (position > 0 && ++pick[position - 1] == pool.size()) pick[--position] = 0;
      if (position == 0 || pool.empty()) return;
    }
  }

  static bool distinct(const std::vector<ValueId>& operands) {
    std::set<ValueId> unique(operands.begin(), operands.end());
    return unique.size() == operands.size();
  }

  // Independent ops of one stage are placed in one order only; an op reading the previous op's
  // output must follow it whatever its first operand.
  static bool in_order(const SearchState& state, const MutantTemplate& tmpl, const std::vector<ValueId>& operands) {
    if (tmpl.stage != state.last_stage || operands[0] >= state.last_first_operand) return true;
    if (state.graph.nodes().empty()) return false;
    const auto& previous = state.graph.nodes().back().outputs;
    return std::any_of(operands.begin(), operands.end(),
                       [&](ValueId id) { return std::find(previous.begin(), previous.end(), id) != previous.end(); });
  }

  // Input transforms form chains: a value already transformed is not transformed again.
  static bool extends_chain(const SearchState& state, const MutantTemplate& tmpl, const std::vector<ValueId>& operands) {
    if (tmpl.stage != Stage::Pre) return true;
    for (ValueId id : operands)
      if (state.uses[static_cast<size_t>(id)] > 0) return false;
    return true;
  }

  // A second compute op is for split pieces (a grouped conv split into smaller ones).
  bool compute_allowed(const SearchState& state, const MutantTemplate& tmpl, const std::vector<ValueId>& operands) const {
    if (tmpl.stage != Stage::Compute || state.computes < static_cast<int>(compute_nodes_.size())) return true;
    for (ValueId id : operands) {
      NodeId producer = state.graph.value(id).producer;
      if (producer >= 0 && state.graph.node(producer).outputs.size() > 1) return true;
    }
    return false;
  }

  static bool roles_fit(const SearchState& state, const MutantTemplate& tmpl, const std::vector<ValueId>& operands) {
    for (size_t i = 0; i < operands.size(); ++i) {
      Role have = state.role[static_cast<size_t>(operands[i])];
      Role want = tmpl.stage == Stage::Compute
                      ? (i < tmpl.operand_roles.size() ? tmpl.operand_roles[i] : Role::Any)
                      : tmpl.role;
      if (want != Role::Any && want != have) return false;
      if (i > 0 && tmpl.stage == Stage::Pre && have != state.role[static_cast<size_t>(operands[0])]) return false;
    }
    return true;
  }

  // Every input transform feeds something: a transform nothing reads makes a candidate that a
  // smaller one already covers.
  static bool transforms_consumed(const SearchState& state) {
    for (const Node& node : state.graph.nodes())
      for (ValueId out : node.outputs)
        if (state.stage[static_cast<size_t>(out)] == Stage::Pre && state.uses[static_cast<size_t>(out)] == 0) return false;
    return true;
  }

  // Places each fitting attribute choice of `tmpl` on `operands` in `state` itself, explores what
  // follows, and takes the placement back: copying the whole state per placement was most of
  // generation's memory traffic.
  void apply(SearchState& state, int ops, const MutantTemplate& tmpl, const std::vector<ValueId>& operands) {
    TemplateContext context{{}, targets_, compute_nodes_, context_weights_, options_.channel_multiples};
    int depth = 0;
    for (ValueId id : operands) {
      context.operands.push_back(state.graph.value(id).type);
      depth = std::max(depth, state.depth[static_cast<size_t>(id)] + 1);
    }
    if (depth > options_.depth) return;
    for (const Attributes& attrs : enumerate_attributes(tmpl.domains, tmpl.op, context)) {
      if (repeats_existing_node(state.graph, tmpl.op, attrs, operands)) {
        ++result_.stats.repeated_ops;
        continue;
      }
      if (!shapes_fit(state.graph, tmpl.op, attrs, operands)) {
        ++result_.stats.shape_mismatches;
        continue;
      }
      Before before = before_placement(state);
      // The shape rule just accepted these operands, so the node fits.
      std::vector<ValueId> outputs =
          state.graph.add_node(tmpl.op, attrs, operands, fmt::format("{}_{}", tmpl.name, state.graph.nodes().size()));
      record(state, tmpl, operands, outputs, depth);
      explore_placement(state, before, ops, tmpl, outputs, depth);
      take_back(state, before, operands);
    }
  }

  // What a placement changes in a state besides what it appends.
  struct Before {
    size_t values;
    Stage last_stage;
    ValueId last_first_operand;
    int computes, pre_ops, post_ops;
  };

  static Before before_placement(const SearchState& state) {
    return {state.graph.values().size(), state.last_stage, state.last_first_operand, state.computes, state.pre_ops,
            state.post_ops};
  }

  static void take_back(SearchState& state, const Before& before, const std::vector<ValueId>& operands) {
    state.graph.remove_last_node();
    state.stage.resize(before.values);
    state.depth.resize(before.values);
    state.role.resize(before.values);
    state.uses.resize(before.values);
    for (ValueId id : operands) --state.uses[static_cast<size_t>(id)];
    state.family.pop_back();
    state.last_stage = before.last_stage;
    state.last_first_operand = before.last_first_operand;
    state.computes = before.computes;
    state.pre_ops = before.pre_ops;
    state.post_ops = before.post_ops;
  }

  // `state` holds the op just placed (its outputs `outputs`): it is counted, pruned or emitted as
  // candidates, and the search goes on from it.
  void explore_placement(SearchState& state, const Before& before, int ops, const MutantTemplate& tmpl,
                         const std::vector<ValueId>& outputs, int depth) {
    if (tmpl.stage == Stage::Post && (before.post_ops + 1 == options_.max_post_ops || depth == options_.depth) &&
        !produces_target(state.graph, outputs)) {
      ++result_.stats.off_target;
      return;
    }
    int64_t prune_work = 0;
    bool recomputes = recomputes_existing_value(state.graph, options_.examine.seed, prune_work);
    result_.stats.work += prune_work;
    result_.stats.prune_work += prune_work;
    if (recomputes) {
      ++result_.stats.cancelling_layouts;
      return;
    }
    ++result_.stats.placed;
    if (tmpl.stage == Stage::Compute && stranded_transforms(state)) {
      ++result_.stats.unused_transforms;
      return;
    }
    if (state.computes > 0) emit_candidates(state);
    expand(state, ops + 1);
  }

  // After a compute op, unread input transforms can only be read by another compute op, which
  // is allowed for split pieces only.
  bool stranded_transforms(const SearchState& state) const {
    for (const Node& node : state.graph.nodes())
      for (ValueId out : node.outputs) {
        if (state.stage[static_cast<size_t>(out)] != Stage::Pre || state.uses[static_cast<size_t>(out)] > 0) continue;
        if (node.outputs.size() == 1 || state.computes >= max_computes_) return true;
      }
    return false;
  }

  bool produces_target(const Graph& graph, const std::vector<ValueId>& outputs) const {
    for (ValueId id : outputs)
      if (std::find(targets_.begin(), targets_.end(), graph.value(id).type) != targets_.end()) return true;
    return false;
  }

  // Whether the op's shape rule accepts the operand types, asked before the op is placed.
  static bool shapes_fit(const Graph& graph, const std::string& op, const Attributes& attrs,
                         const std::vector<ValueId>& operands) {
    const OpDef& def = OpRegistry::global().get(op);
    std::vector<const TensorType*> types;
    for (ValueId id : operands) types.push_back(&graph.value(id).type);
    return !infer_types(def, complete_attributes(def, attrs), types, op).refused();
  }

  static bool repeats_existing_node(const Graph& graph, const std::string& op, const Attributes& attrs,
                                    const std::vector<ValueId>& operands) {
    for (const Node& node : graph.nodes())
      if (node.op() == op && node.inputs == operands && complete_attributes(*node.def, attrs) == node.attrs) return true;
    return false;
  }

  void record(SearchState& state, const MutantTemplate& tmpl, const std::vector<ValueId>& operands,
              const std::vector<ValueId>& outputs, int depth) const {
    Stage produced = tmpl.stage == Stage::Pre ? Stage::Pre : Stage::Post;
    state.stage.resize(state.graph.values().size(), produced);
    state.depth.resize(state.graph.values().size(), depth);
    state.role.resize(state.graph.values().size(), state.role[static_cast<size_t>(operands[0])]);
    state.uses.resize(state.graph.values().size(), 0);
    for (ValueId id : operands) ++state.uses[static_cast<size_t>(id)];
    for (ValueId id : outputs) {
      state.stage[static_cast<size_t>(id)] = produced;
      state.depth[static_cast<size_t>(id)] = depth;
    }
    state.family.push_back(tmpl.name);
    state.computes += tmpl.stage == Stage::Compute;
    state.pre_ops += tmpl.stage == Stage::Pre;
    state.post_ops += tmpl.stage == Stage::Post;
    state.last_stage = tmpl.stage;
    state.last_first_operand = operands[0];
  }

  void emit_candidates(const SearchState& state) {
    std::vector<std::vector<ValueId>> options_per_target;
    for (const TensorType& target : targets_) {
      std::vector<ValueId> matching;
      for (size_t v = 0; v < state.stage.size(); ++v)
        if (state.stage[v] == Stage::Post && state.graph.values()[v].type == target) matching.push_back(static_cast<ValueId>(v));
      if (matching.empty()) return;
      options_per_target.push_back(std::move(matching));
    }
    std::vector<ValueId> chosen;
    assign_outputs(state, options_per_target, chosen);
  }

  void assign_outputs(const SearchState& state, const std::vector<std::vector<ValueId>>& options, std::vector<ValueId>& chosen) {
    if (chosen.size() == options.size()) return consider(state, chosen);
    for (ValueId id : options[chosen.size()]) {
      if (std::find(chosen.begin(), chosen.end(), id) != chosen.end()) continue;
      chosen.push_back(id);
      assign_outputs(state, options, chosen);
      chosen.pop_back();
    }
  }

  void consider(const SearchState& state, const std::vector<ValueId>& outputs) {
    if (has_dead_nodes(state.graph, outputs)) {
      ++result_.stats.dead_ops;
      return;
    }
    Graph candidate = state.graph;
    candidate.set_outputs(outputs);
    candidate.remove_nodes({});
    if (!seen_.insert(structural_hash(candidate)).second) {
      ++result_.stats.duplicates;
      return;
    }
    examine_and_keep(std::move(candidate));
  }

  static bool has_dead_nodes(const Graph& graph, const std::vector<ValueId>& outputs) {
    std::vector<bool> live(graph.values().size(), false);
    for (ValueId id : outputs) live[static_cast<size_t>(id)] = true;
    for (auto n = static_cast<int>(graph.nodes().size()) - 1; n >= 0; --n) {
      const Node& node = graph.node(n);
      bool used = std::any_of(node.outputs.begin(), node.outputs.end(), [&](ValueId id) { return live[static_cast<size_t>(id)]; });
      if (!used) return true;
      for (ValueId id : node.inputs)
        if (id != kNoValue) live[static_cast<size_t>(id)] = true;
    }
    return false;
  }

  void examine_and_keep(Graph candidate) {
    // Examining one candidate of a large conv takes a while; the budget is honoured here too.
    if (out_of_budget()) return;
    ++result_.stats.examined;
    ExamineOptions examine_options = options_.examine;
    if (options_.max_work) examine_options.max_work = *options_.max_work - result_.stats.work;
    Verdict verdict = examine(reference_, candidate, examine_options);
    result_.stats.work += verdict.work;  // a verdict cut short by a budget is Rejected
    if (verdict.kind == VerdictKind::Full) ++result_.stats.full;
    if (verdict.kind == VerdictKind::Partial) ++result_.stats.partial;
    if (verdict.kind == VerdictKind::Rejected) {
      ++result_.stats.rejected;
      result_.stats.screened_out += verdict.points_tested == 0 && verdict.reason.rfind("wrong at every", 0) == 0;
      return;
    }
    bool wanted = options_.equivalence == Equivalence::Both ||
                  (options_.equivalence == Equivalence::FullOnly) == (verdict.kind == VerdictKind::Full);
    if (!wanted) return;
    std::string family;
    for (const Node& node : candidate.nodes()) {
      std::string name = node.name.substr(0, node.name.rfind('_'));
      family += (family.empty() ? "" : "+") + name;
    }
    result_.mutants.push_back({std::move(candidate), std::move(verdict), family});
  }

  // Sets the stop flag when the work budget or the placement budget ran out; throws Cancelled when
  // the caller stopped the run.
  bool out_of_budget() {
    throw_if_cancelled(options_.cancelled);
    if (options_.max_work && result_.stats.work >= *options_.max_work) result_.stats.out_of_work = true;
    if (options_.max_placements && placements_tried() >= *options_.max_placements) result_.stats.out_of_work = true;
    return result_.stats.out_of_work;
  }

  int64_t placements_tried() const {
    const GeneratorStats& stats = result_.stats;
    return stats.placed + stats.repeated_ops + stats.off_target + stats.cancelling_layouts;
  }

  void sort_mutants() {
    std::vector<std::pair<uint64_t, size_t>> keys;
    for (size_t i = 0; i < result_.mutants.size(); ++i) keys.emplace_back(structural_hash(result_.mutants[i].program), i);
    std::vector<size_t> order(result_.mutants.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const Verdict& va = result_.mutants[a].verdict;
      const Verdict& vb = result_.mutants[b].verdict;
      if (va.kind != vb.kind) return va.kind < vb.kind;
      if (va.fraction_correct != vb.fraction_correct) return va.fraction_correct > vb.fraction_correct;
      return keys[a].first < keys[b].first;
    });
    std::vector<Mutant> sorted;
    for (size_t i : order) sorted.push_back(std::move(result_.mutants[i]));
    result_.mutants = std::move(sorted);
  }

  const Graph& original_;
  const GeneratorOptions& options_;
  ExamineReference reference_;  // the original's values, shared by every candidate's examination
  std::vector<const Node*> compute_nodes_;
  std::vector<TensorType> context_weights_;
  std::vector<TensorType> targets_;
  int max_computes_ = 2;
  std::set<uint64_t> seen_;
  std::set<ValueId> weight_values_;  // the original's compute ops read these as weights
  Generation result_;
};

}  // namespace

std::string GeneratorStats::summary() const {
  return fmt::format("{} placed ({} shape mismatches, {} repeated ops, {} cancelling layouts, {} branching and {} unused "
                     "transforms, {} off target), {} dead, {} duplicate, {} examined: {} full, {} partial, {} rejected "
                     "({} by screening), {} elements read, in {:.3f} s{}",
                     placed, shape_mismatches, repeated_ops, cancelling_layouts, branching_transforms, unused_transforms,
                     off_target, dead_ops, duplicates, examined, full, partial, rejected, screened_out, work, seconds,
                     out_of_work ? " (work budget spent)" : empty_tensors ? " (empty tensors: not mutated)" : "");
}

bool has_empty_tensor(const Graph& graph) {
  return std::any_of(graph.values().begin(), graph.values().end(),
                     [](const Value& value) { return value.type.shape.numel() == 0; });
}

Generation generate_mutants(const Graph& subprogram, const GeneratorOptions& options) {
  return Search(subprogram, options).run();
}

}  // namespace pet::mutant
