// Subgraph matching of library rules: an index by the left side's last node, backtracking along
// shared values, the checks that make the rewrite a valid graph, and a Z3 proof of the instance.
#include "search/rules/rule_matcher.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/hash.h"
#include "core/memo.h"
#include "core/text_ir.h"
#include "mutant/generator.h"
#include "search/rules/bias_free_view.h"
#include "search/rules/compiled_rule.h"
#include "search/generate/partition.h"
#include "verifier/element_domain.h"

namespace pet::search {

ProveOptions default_instance_prove_options() {
  ProveOptions options;
  options.rlimit = 3000000;  // what mutant/rules proved the library with
  options.timeout = std::chrono::milliseconds(20000);
  options.numeric_refutation = true;
  // At batch 16 a conv instance run on the executor is seconds of the search's clock: larger
  // instances go to Z3 alone (every axiom is checked numerically in the tests, and the final
  // check runs the whole optimized model).
  options.numeric_refutation_max_elements = 1 << 20;
  return options;
}

RuleSet RuleSet::from_library(const std::vector<rules::LibraryRule>& library) {
  RuleSet set;
  auto add = [&](const std::string& name, const rules::LibraryRule& from, const std::string& lhs,
                 const std::string& rhs) {
    std::string why;
    if (auto rule = CompiledRule::compile(name, from.name, lhs, rhs, why, from.per_channel))
      set.rules_.push_back(std::make_shared<const CompiledRule>(std::move(*rule)));
    else
      set.skipped_.push_back(name + ": " + why);
  };
  for (const rules::LibraryRule& rule : library) {
    if (rule.status != "proved") continue;
    add(rule.name, rule, rule.lhs, rule.rhs);
    if (rule.bidirectional) add(rule.name + " (reversed)", rule, rule.rhs, rule.lhs);
  }
  std::stable_sort(set.rules_.begin(), set.rules_.end(),
                   [](const auto& a, const auto& b) { return a->name < b->name; });
  return set;
}

RuleSet RuleSet::load(const std::string& directory) { return from_library(rules::read_rule_library(directory)); }

size_t RuleSet::size() const { return rules_.size(); }

void MatchStats::add(const MatchStats& more) {
  structural += more.structural;
  outside_reader += more.outside_reader;
  cycle += more.cycle;
  element_type_refused += more.element_type_refused;
  shape_refused += more.shape_refused;
  type_mismatch += more.type_mismatch;
  not_proved += more.not_proved;
  guard_refused += more.guard_refused;
  applied += more.applied;
}

// The graph facts one apply_all call shares across rules, and the binding under construction.
struct RuleMatcher::Scratch {
  const Graph& graph;
  Consumers consumers;
  std::vector<bool> graph_output;
  MatchStats stats;
  std::vector<ValueId> values;  // lhs value -> graph value
  std::vector<NodeId> nodes;    // lhs node -> graph node
  AttrBindings bindings;        // variable attribute values of the rule -> of the graph
  std::vector<uint32_t> seen;   // visit stamps of the cycle search
  uint32_t stamp = 0;

  explicit Scratch(const Graph& g)
      : graph(g), consumers(g.consumers()), graph_output(g.values().size(), false), seen(g.nodes().size(), 0) {
    for (ValueId id : g.outputs()) graph_output[static_cast<size_t>(id)] = true;
  }
};

namespace {

using Scratch = RuleMatcher::Scratch;

// Binds lhs values to graph values along one plan; calls `emit` for every complete binding.
class Backtracker {
 public:
  Backtracker(const CompiledRule& rule, Scratch& scratch, std::function<bool()> emit)
      : rule_(rule), s_(scratch), emit_(std::move(emit)) {
    s_.values.assign(rule.lhs.values().size(), kNoValue);
    s_.nodes.assign(rule.lhs.nodes().size(), -1);
    s_.bindings.clear();
  }

  // Returns false when `emit` asked to stop.
  bool run(NodeId anchor) { return extend(0, anchor); }

 private:
  bool bind_value(ValueId lv, ValueId gv, std::vector<ValueId>& trail) {
    if (lv == kNoValue || gv == kNoValue) return lv == gv;
    ValueId& slot = s_.values[static_cast<size_t>(lv)];
    if (slot != kNoValue) return slot == gv;
    if (rule_.lhs.value(lv).producer < 0)  // distinct variables bind distinct values
      for (ValueId input : rule_.lhs.inputs())
        if (s_.values[static_cast<size_t>(input)] == gv) return false;
    slot = gv;
    trail.push_back(lv);
    return true;
  }

  void undo(std::vector<ValueId>& trail) {
    for (ValueId lv : trail) s_.values[static_cast<size_t>(lv)] = kNoValue;
    trail.clear();
  }

  bool bind_node(NodeId lhs_node, NodeId graph_node, std::vector<ValueId>& trail) {
    const Node& m = rule_.lhs.node(lhs_node);
    const Node& g = s_.graph.node(graph_node);
    if (m.def != g.def || m.inputs.size() != g.inputs.size() || m.outputs.size() != g.outputs.size()) return false;
    if (std::find(s_.nodes.begin(), s_.nodes.end(), graph_node) != s_.nodes.end()) return false;
    if (!bind_attributes(m.op(), m.attrs, g.attrs, s_.bindings)) return false;
    bool ok = true;
    for (size_t i = 0; ok && i < m.inputs.size(); ++i) ok = bind_value(m.inputs[i], g.inputs[i], trail);
    for (size_t i = 0; ok && i < m.outputs.size(); ++i) ok = bind_value(m.outputs[i], g.outputs[i], trail);
    if (!ok) {
      undo(trail);
      return false;
    }
    s_.nodes[static_cast<size_t>(lhs_node)] = graph_node;
    return true;
  }

  bool try_node(size_t step, NodeId graph_node) {
    std::vector<ValueId> trail;
    NodeId lhs_node = rule_.plan[step].node;
    size_t bound_attributes = s_.bindings.size();
    if (!bind_node(lhs_node, graph_node, trail)) {
      s_.bindings.resize(bound_attributes);
      return true;
    }
    bool go_on = extend(step + 1, graph_node);
    s_.bindings.resize(bound_attributes);
    undo(trail);
    s_.nodes[static_cast<size_t>(lhs_node)] = -1;
    return go_on;
  }

  bool extend(size_t step, NodeId anchor) {
    if (step == rule_.plan.size()) return emit_();
    const MatchStep& next = rule_.plan[step];
    if (next.link == MatchStep::Link::Anchor) return try_node(step, anchor);
    ValueId bound = s_.values[static_cast<size_t>(next.via)];
    if (bound == kNoValue) return true;
    if (next.link == MatchStep::Link::Producer) {
      NodeId producer = s_.graph.value(bound).producer;
      return producer < 0 || try_node(step, producer);
    }
    for (NodeId reader : s_.consumers[static_cast<size_t>(bound)]) {
      const Node& node = s_.graph.node(reader);
      if (static_cast<size_t>(next.position) < node.inputs.size() &&
          node.inputs[static_cast<size_t>(next.position)] == bound && !try_node(step, reader))
        return false;
    }
    return true;
  }

  const CompiledRule& rule_;
  Scratch& s_;
  std::function<bool()> emit_;
};

// A value the rewrite removes (an lhs internal value) must have no reader outside the match.
bool removed_values_unread(const CompiledRule& rule, const Scratch& s) {
  for (size_t v = 0; v < rule.internal.size(); ++v) {
    if (!rule.internal[v]) continue;
    ValueId gv = s.values[v];
    if (s.graph_output[static_cast<size_t>(gv)]) return false;
    for (NodeId reader : s.consumers[static_cast<size_t>(gv)])
      if (std::find(s.nodes.begin(), s.nodes.end(), reader) == s.nodes.end()) return false;
  }
  return true;
}

// True when a bound input is computed from a matched node: the rewrite would read its own output.
bool creates_cycle(const CompiledRule& rule, Scratch& s) {
  NodeId last_producer = -1;
  for (ValueId input : rule.lhs.inputs())
    last_producer = std::max(last_producer, s.graph.value(s.values[static_cast<size_t>(input)]).producer);
  if (last_producer < 0) return false;
  if (++s.stamp == 0) std::fill(s.seen.begin(), s.seen.end(), 0), s.stamp = 1;
  std::vector<NodeId> stack(s.nodes.begin(), s.nodes.end());
  for (NodeId node : stack) s.seen[static_cast<size_t>(node)] = s.stamp;
  while (!stack.empty()) {
    NodeId node = stack.back();
    stack.pop_back();
    for (ValueId out : s.graph.node(node).outputs)
      for (NodeId reader : s.consumers[static_cast<size_t>(out)])
        if (reader <= last_producer && s.seen[static_cast<size_t>(reader)] != s.stamp) {
          s.seen[static_cast<size_t>(reader)] = s.stamp;
          stack.push_back(reader);
        }
  }
  for (ValueId input : rule.lhs.inputs()) {
    NodeId producer = s.graph.value(s.values[static_cast<size_t>(input)]).producer;
    if (producer >= 0 && s.seen[static_cast<size_t>(producer)] == s.stamp) return true;
  }
  return false;
}

std::string joined_names(const Graph& graph, const std::vector<NodeId>& nodes) {
  std::string text;
  for (NodeId node : nodes) text += (text.empty() ? "" : ", ") + graph.node(node).name;
  return text;
}

// The application of a proved match: the right side spliced in place of the matched nodes.
RuleApplication rewritten(const CompiledRule& rule, const Scratch& s, std::vector<ValueId> inputs,
                          std::vector<ValueId> outputs, const Graph& rhs, ProofResult proof) {
  Subprogram match;
  match.nodes = s.nodes;
  std::sort(match.nodes.begin(), match.nodes.end());
  match.inputs = std::move(inputs);
  match.outputs = std::move(outputs);
  RuleApplication application;
  application.rule = rule.name;
  application.matched = match.nodes;
  application.location = joined_names(s.graph, match.nodes);
  application.result = splice(s.graph, match, rhs, s.graph.node(s.nodes[rule.plan[0].node]).name + "/");
  application.proof = std::move(proof);
  return application;
}

}  // namespace

RuleMatcher::RuleMatcher(const RuleSet& rules, MatchOptions options) : rules_(rules), options_(std::move(options)) {
  for (size_t i = 0; i < rules_.rules().size(); ++i) {
    const CompiledRule& rule = *rules_.rules()[i];
    if (options_.only_non_growing && rule.rhs_compute_ops > rule.lhs_compute_ops) {
      ++skipped_growing_;
      continue;
    }
    by_anchor_[rule.anchor_key].push_back(i);
  }
}

namespace {

// Proofs of rule instances made in this process, by the instance's content: a proof under a
// resource limit is a function of the two sides and the options (the rule's name is no part of
// it: two rule sets may use one name for different rules). Kept by forget_memos(): an answer is
// a Z3 query. At most 4,096 answers (each holds its axiom labels, a few kilobytes).
Memo<ProofResult>& instance_proofs() {
  static Memo<ProofResult> memo(4096, OnForget::Keep);
  return memo;
}

// The key of an instance proof; none when the answer could depend on more than the key (custom
// axioms by address, or no resource limit, so only the clock stops Z3).
std::optional<std::string> instance_proof_key(const Graph& lhs, const Graph& rhs, const ProveOptions& options) {
  if (options.axioms != nullptr || options.rlimit == 0) return std::nullopt;
  return fmt::format("{}\n--\n{}\n-- rlimit {} timeout {} rounds {} instances {} numeric {} {} seed {}",
                     print_graph(lhs), print_graph(rhs), options.rlimit, options.timeout.count(),
                     options.limits.rounds, options.limits.max_instances, options.numeric_refutation,
                     options.numeric_refutation_max_elements, options.seed);
}

// Whether another attempt would give the same answer: not when the clock or a Z3 failure
// (memory, say) ended it.
bool reproducible(const ProofResult& proof) {
  if (proof.status != ProofStatus::Unknown) return true;
  for (const char* transient : {"timeout", "canceled", "Z3 error"})
    if (proof.reason.find(transient) != std::string::npos) return false;
  return true;
}

ProofResult prove_or_recall(const Graph& lhs, const Graph& rhs, const ProveOptions& options) {
  std::optional<std::string> key = instance_proof_key(lhs, rhs, options);
  if (key)
    if (std::optional<ProofResult> known = instance_proofs().find(*key)) return *known;
  ProofResult proof = prove(lhs, rhs, options);
  if (key && reproducible(proof)) instance_proofs().remember(std::move(*key), proof);
  return proof;
}

}  // namespace

size_t remembered_instance_proofs() { return instance_proofs().size(); }

ProofResult RuleMatcher::prove_instance(const CompiledRule& rule, const Graph& lhs, const Graph& rhs) const {
  Hasher hasher;
  hasher.add(rule.name);
  for (ValueId input : lhs.inputs()) hasher.add(lhs.value(input).type.to_string());
  for (const Node& node : lhs.nodes()) hasher.add(node.attrs.to_string());  // bound conv attributes
  uint64_t key = hasher.value();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto hit = proof_cache_.find(key); hit != proof_cache_.end()) return hit->second;
  }
  ProofResult proof = prove_or_recall(lhs, rhs, options_.prove);
  std::lock_guard<std::mutex> lock(mutex_);
  auto [slot, inserted] = proof_cache_.emplace(key, std::move(proof));
  if (inserted) {
    ++proofs_run_;
    if (slot->second.status != ProofStatus::Proved) {
      std::string types;
      for (ValueId input : lhs.inputs()) types += (types.empty() ? "" : ", ") + lhs.value(input).type.to_string();
      failed_.push_back({rule.name, types, slot->second.status, slot->second.reason});
    }
  }
  return slot->second;
}

// The proof of an instance at its f32 twin: the axioms and the numeric refutation are stated over
// f32, and an instance over other types passed the element-type gate only by moving elements, which
// holds at every type exactly when it holds at f32.
ProofResult RuleMatcher::prove_at_f32(const CompiledRule& rule, const Scratch& s, std::vector<TensorType> types,
                                      std::vector<TensorType> output_types, const Graph& lhs, const Graph& rhs) const {
  auto all_f32 = [](const std::vector<TensorType>& list) {
    return std::all_of(list.begin(), list.end(), [](const TensorType& type) { return type.dtype == DType::f32; });
  };
  if (all_f32(types) && all_f32(output_types)) return prove_instance(rule, lhs, rhs);
  for (std::vector<TensorType>* list : {&types, &output_types})
    for (TensorType& type : *list) type.dtype = DType::f32;
  std::string refusal;
  std::optional<Graph> lhs_f32 = instantiate(rule.lhs, types, nullptr, refusal, &s.bindings);
  std::optional<Graph> rhs_f32 = lhs_f32 ? instantiate(rule.rhs, types, &output_types, refusal, &s.bindings) : std::nullopt;
  if (!rhs_f32) {
    ProofResult unknown;
    unknown.reason = "the f32 twin of the instance does not instantiate: " + refusal;
    return unknown;
  }
  return prove_instance(rule, *lhs_f32, *rhs_f32);
}

void RuleMatcher::complete_match(const CompiledRule& rule, Scratch& s, std::vector<RuleApplication>& found) const {
  ++s.stats.structural;
  if (!removed_values_unread(rule, s)) {
    ++s.stats.outside_reader;
    return;
  }
  if (creates_cycle(rule, s)) {
    ++s.stats.cycle;
    return;
  }
  if (!may_rewrite(s.graph, s.nodes)) {
    ++s.stats.element_type_refused;
    return;
  }
  std::vector<TensorType> types, output_types;
  std::vector<ValueId> inputs, outputs;
  for (ValueId input : rule.lhs.inputs()) {
    inputs.push_back(s.values[static_cast<size_t>(input)]);
    types.push_back(s.graph.value(inputs.back()).type);
  }
  for (ValueId output : rule.lhs.outputs()) {
    outputs.push_back(s.values[static_cast<size_t>(output)]);
    output_types.push_back(s.graph.value(outputs.back()).type);
  }
  if (!rule.guard_holds(types) || !rule.operands_unbroadcast(s.graph, s.nodes)) {
    ++s.stats.guard_refused;
    return;
  }
  std::string refusal;
  std::optional<Graph> lhs = instantiate(rule.lhs, types, nullptr, refusal, &s.bindings);
  std::optional<Graph> rhs = lhs ? instantiate(rule.rhs, types, &output_types, refusal, &s.bindings) : std::nullopt;
  // An instance over an empty tensor computes nothing (the mutant generator skips such subprograms
  // too): no rewrite of it can pay, and the axioms hold for non-empty shapes.
  if (!rhs || mutant::has_empty_tensor(*lhs)) {
    ++s.stats.shape_refused;
    return;
  }
  if (!may_rewrite(*rhs)) {  // a right side that computes what its left side only moved
    ++s.stats.element_type_refused;
    return;
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (rhs->value(rhs->outputs()[k]).type != output_types[k]) {
      ++s.stats.type_mismatch;
      return;
    }
  }
  ProofResult proof = prove_at_f32(rule, s, types, output_types, *lhs, *rhs);
  if (proof.status != ProofStatus::Proved) {
    ++s.stats.not_proved;
    return;
  }
  found.push_back(rewritten(rule, s, inputs, outputs, *rhs, std::move(proof)));
  ++s.stats.applied;
}

void RuleMatcher::match_rules(const Graph& graph, RuleFilter filter, std::vector<RuleApplication>& found,
                              MatchStats& stats) const {
  Scratch scratch(graph);
  auto full = [&] { return found.size() >= options_.max_applications; };
  for (size_t n = 0; n < graph.nodes().size() && !full(); ++n) {
    const Node& node = graph.nodes()[n];
    auto bucket = by_anchor_.find(anchor_key_of(node.op(), node.attrs));
    if (bucket == by_anchor_.end()) continue;
    for (size_t index : bucket->second) {
      const CompiledRule& rule = *rules_.rules()[index];
      if ((filter == RuleFilter::OverConvs && !rule.over_convs) || (filter == RuleFilter::NotOverConvs && rule.over_convs))
        continue;
      Backtracker backtracker(rule, scratch, [&] {
        complete_match(rule, scratch, found);
        return !full();
      });
      if (!backtracker.run(static_cast<NodeId>(n))) break;
    }
  }
  stats.add(scratch.stats);
}

std::vector<RuleApplication> RuleMatcher::apply_all(const Graph& graph, MatchStats* stats) const {
  MatchStats total;
  total.skipped_growing = skipped_growing_;
  std::vector<RuleApplication> found;
  std::optional<Graph> view = bias_free_view(graph);
  match_rules(graph, view ? RuleFilter::NotOverConvs : RuleFilter::All, found, total);
  if (view) {
    size_t first = found.size();
    match_rules(*view, RuleFilter::OverConvs, found, total);
    for (size_t i = first; i < found.size(); ++i) restore_conv_biases(found[i].result);
  }
  if (stats) *stats = total;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const RuleApplication& application : found) ++applications_by_rule_[application.rule];
  return found;
}

int64_t RuleMatcher::proofs_run() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return proofs_run_;
}

int64_t RuleMatcher::proofs_failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(failed_.size());
}

std::string FailedInstance::describe() const {
  return rule + " at " + input_types + ": " + std::string(proof_status_name(status)) + " (" + reason + ")";
}

std::map<std::string, int64_t> RuleMatcher::applications_by_rule() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return applications_by_rule_;
}

std::vector<FailedInstance> RuleMatcher::failed_instances() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_;
}

}  // namespace pet::search
