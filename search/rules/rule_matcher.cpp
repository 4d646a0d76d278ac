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
#include "core/parallel.h"
#include "core/structural_hash.h"
#include "core/text_ir.h"
#include "mutant/generator.h"
#include "search/rules/bias_free_view.h"
#include "search/rules/compiled_rule.h"
#include "search/generate/partition.h"
#include "verifier/element_domain.h"
#include "verifier/z3/proof_store.h"

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

// The graph facts one match_rules call shares across its threads (read only).
struct RuleMatcher::GraphFacts {
  const Graph& graph;
  Consumers consumers;
  std::vector<bool> graph_output;

  explicit GraphFacts(const Graph& g) : graph(g), consumers(g.consumers()), graph_output(g.values().size(), false) {
    for (ValueId id : g.outputs()) graph_output[static_cast<size_t>(id)] = true;
  }
};

// One thread's binding under construction, over the shared graph facts.
struct RuleMatcher::Scratch {
  const Graph& graph;
  const Consumers& consumers;
  const std::vector<bool>& graph_output;
  std::vector<ValueId> values;  // lhs value -> graph value
  std::vector<NodeId> nodes;    // lhs node -> graph node
  AttrBindings bindings;        // variable attribute values of the rule -> of the graph
  std::vector<uint32_t> seen;   // visit stamps of the cycle search
  uint32_t stamp = 0;

  explicit Scratch(const GraphFacts& facts)
      : graph(facts.graph), consumers(facts.consumers), graph_output(facts.graph_output),
        seen(facts.graph.nodes().size(), 0) {}
};

// A complete binding that passed every check but the proof: what its proof and rewrite need.
struct RuleMatcher::PendingMatch {
  const CompiledRule* rule = nullptr;
  std::vector<NodeId> nodes;  // lhs node -> graph node
  AttrBindings bindings;
  std::vector<ValueId> inputs, outputs;
  std::vector<TensorType> types, output_types;
  std::shared_ptr<const Instance> instance;  // both sides at these types and bindings
};

// What one complete binding came to, in match order: the check that dropped it, or a pending match.
struct RuleMatcher::MatchEvent {
  int64_t MatchStats::*dropped = nullptr;
  std::optional<PendingMatch> pending;
  static MatchEvent dropped_by(int64_t MatchStats::*reason) { return {reason, std::nullopt}; }
};

// The sides a match is proved at: the instance itself, or its f32 twin. The axioms and the numeric
// refutation are stated over f32, and an instance over other types passed the element-type gate
// only by moving elements, which holds at every type exactly when it holds at f32.
struct RuleMatcher::ProvedSides {
  const Graph* lhs = nullptr;  // the match's instance or twin_lhs; none when the twin does not instantiate
  const Graph* rhs = nullptr;
  std::optional<Graph> twin_lhs, twin_rhs;
  std::string refusal;
  uint64_t key = 0;  // the matcher's key of the instance (instance_key)
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
RuleApplication rewritten(const Graph& graph, RuleMatcher::PendingMatch& match, ProofResult proof) {
  const CompiledRule& rule = *match.rule;
  Subprogram site;
  site.nodes = match.nodes;
  std::sort(site.nodes.begin(), site.nodes.end());
  site.inputs = std::move(match.inputs);
  site.outputs = std::move(match.outputs);
  RuleApplication application;
  application.rule = rule.name;
  application.matched = site.nodes;
  application.location = joined_names(graph, site.nodes);
  application.result = splice(graph, site, match.instance->rhs, graph.node(match.nodes[static_cast<size_t>(rule.plan[0].node)]).name + "/");
  application.proof = std::move(proof);
  return application;
}

}  // namespace

RuleMatcher::RuleMatcher(const RuleSet& rules, MatchOptions options)
    : rules_(rules), options_(std::move(options)), threads_(thread_count_for(options_.threads)) {
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

// This process's answer, else the proof store's (an earlier run's: verifier/z3/proof_store.h),
// else a proof run now and remembered in both.
ProofResult prove_or_recall(const Graph& lhs, const Graph& rhs, const ProveOptions& options) {
  std::optional<std::string> key = instance_proof_key(lhs, rhs, options);
  if (!key) return prove(lhs, rhs, options);
  if (std::optional<ProofResult> known = instance_proofs().find(*key)) return *known;
  std::optional<ProofStore> store = ProofStore::from_environment();
  if (store)
    if (std::optional<ProofResult> stored = store->find(*key)) {
      instance_proofs().remember(*key, *stored);
      return *stored;
    }
  ProofResult proof = prove(lhs, rhs, options);
  if (!reproducible(proof)) return proof;
  if (store) store->remember(*key, proof);
  instance_proofs().remember(std::move(*key), proof);
  return proof;
}

}  // namespace

size_t remembered_instance_proofs() { return instance_proofs().size(); }

namespace {

// The matcher's own key of an instance: the rule direction, the input types and the bound attributes.
uint64_t instance_key(const CompiledRule& rule, const Graph& lhs) {
  Hasher hasher;
  hasher.add(rule.name);
  for (ValueId input : lhs.inputs()) hasher.add(lhs.value(input).type.to_string());
  for (const Node& node : lhs.nodes()) hasher.add(node.attrs.to_string());  // bound conv attributes
  return hasher.value();
}

using ProvedSides = RuleMatcher::ProvedSides;

// Fills `sides` in place (it points into itself).
void find_sides_to_prove(const RuleMatcher::PendingMatch& match, ProvedSides& sides) {
  auto all_f32 = [](const std::vector<TensorType>& list) {
    return std::all_of(list.begin(), list.end(), [](const TensorType& type) { return type.dtype == DType::f32; });
  };
  if (all_f32(match.types) && all_f32(match.output_types)) {
    sides.lhs = &match.instance->lhs, sides.rhs = &match.instance->rhs;
  } else {
    std::vector<TensorType> types = match.types, output_types = match.output_types;
    for (std::vector<TensorType>* list : {&types, &output_types})
      for (TensorType& type : *list) type.dtype = DType::f32;
    sides.twin_lhs = instantiate(match.rule->lhs, types, nullptr, sides.refusal, &match.bindings);
    if (sides.twin_lhs) sides.twin_rhs = instantiate(match.rule->rhs, types, &output_types, sides.refusal, &match.bindings);
    if (!sides.twin_rhs) return;
    sides.lhs = &*sides.twin_lhs, sides.rhs = &*sides.twin_rhs;
  }
  sides.key = instance_key(*match.rule, *sides.lhs);
}

}  // namespace

std::optional<ProofResult> RuleMatcher::recalled_proof(uint64_t key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto hit = proof_cache_.find(key);
  return hit == proof_cache_.end() ? std::nullopt : std::optional<ProofResult>(hit->second);
}

void RuleMatcher::record_proof(uint64_t key, const CompiledRule& rule, const Graph& lhs, const ProofResult& proof) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [slot, inserted] = proof_cache_.emplace(key, proof);
  if (!inserted) return;
  ++proofs_run_;
  if (slot->second.status != ProofStatus::Proved) {
    std::string types;
    for (ValueId input : lhs.inputs()) types += (types.empty() ? "" : ", ") + lhs.value(input).type.to_string();
    failed_.push_back({rule.name, types, slot->second.status, slot->second.reason});
  }
}

namespace {

// The key of a rule's instance: the rule direction (by address: the matcher's rule set outlives
// it), the matched input and output types and the bound attribute values.
uint64_t instance_site_key(const CompiledRule& rule, const RuleMatcher::PendingMatch& match, const AttrBindings& bindings) {
  Hasher hasher;
  hasher.add(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&rule)));
  for (const std::vector<TensorType>* list : {&match.types, &match.output_types}) {
    hasher.add(static_cast<uint64_t>(list->size()));
    for (const TensorType& type : *list) {
      hasher.add(static_cast<uint64_t>(type.dtype));
      hasher.add(static_cast<uint64_t>(type.shape.rank()));
      for (int64_t d : type.shape.dims()) hasher.add(static_cast<uint64_t>(d));
    }
  }
  for (const AttrBinding& binding : bindings) {
    hasher.add(binding.key);
    add_attr_value(hasher, binding.rule_value);
    add_attr_value(hasher, binding.graph_value);
  }
  return hasher.value();
}

// Both sides of a rule instance built at the matched types and bindings, and the check they fail.
RuleMatcher::Instance build_instance(const CompiledRule& rule, const RuleMatcher::PendingMatch& match,
                                     const AttrBindings& bindings) {
  RuleMatcher::Instance instance{&rule, match.types, match.output_types, bindings, {}, {}, nullptr};
  std::string refusal;
  std::optional<Graph> lhs = instantiate(rule.lhs, match.types, nullptr, refusal, &bindings);
  std::optional<Graph> rhs = lhs ? instantiate(rule.rhs, match.types, &match.output_types, refusal, &bindings) : std::nullopt;
  // An instance over an empty tensor computes nothing (the mutant generator skips such subprograms
  // too): no rewrite of it can pay, and the axioms hold for non-empty shapes.
  if (!rhs || mutant::has_empty_tensor(*lhs)) {
    instance.dropped = &MatchStats::shape_refused;
    return instance;
  }
  if (!may_rewrite(*rhs)) {  // a right side that computes what its left side only moved
    instance.dropped = &MatchStats::element_type_refused;
    return instance;
  }
  for (size_t k = 0; k < match.output_types.size(); ++k)
    if (rhs->value(rhs->outputs()[k]).type != match.output_types[k]) {
      instance.dropped = &MatchStats::type_mismatch;
      return instance;
    }
  instance.lhs = std::move(*lhs);
  instance.rhs = std::move(*rhs);
  return instance;
}

}  // namespace

// This matcher's instances, built once each: every expanded program matches the same rules at the
// same types again. Starts over past kRememberedInstances.
std::shared_ptr<const RuleMatcher::Instance> RuleMatcher::instance_of(const CompiledRule& rule, const PendingMatch& match,
                                                                      const AttrBindings& bindings) const {
  uint64_t key = instance_site_key(rule, match, bindings);
  auto same_instance = [&](const Instance& known) {
    return known.rule == &rule && known.types == match.types && known.output_types == match.output_types &&
           std::equal(known.bindings.begin(), known.bindings.end(), bindings.begin(), bindings.end(),
                      [](const AttrBinding& a, const AttrBinding& b) {
                        return a.key == b.key && a.rule_value == b.rule_value && a.graph_value == b.graph_value;
                      });
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = instances_.find(key);
    if (found != instances_.end() && same_instance(*found->second)) return found->second;
  }
  auto instance = std::make_shared<const Instance>(build_instance(rule, match, bindings));
  std::lock_guard<std::mutex> lock(mutex_);
  if (instances_.size() >= kRememberedInstances) instances_.clear();
  ++instances_built_;
  auto [slot, added] = instances_.emplace(key, instance);
  if (added || !same_instance(*slot->second)) return instance;  // a key of another instance keeps its own
  return slot->second;  // another thread's, if it came first
}

RuleMatcher::MatchEvent RuleMatcher::complete_match(const CompiledRule& rule, Scratch& s) const {
  if (!removed_values_unread(rule, s)) return MatchEvent::dropped_by(&MatchStats::outside_reader);
  if (creates_cycle(rule, s)) return MatchEvent::dropped_by(&MatchStats::cycle);
  if (!may_rewrite(s.graph, s.nodes)) return MatchEvent::dropped_by(&MatchStats::element_type_refused);
  PendingMatch match;
  match.rule = &rule;
  for (ValueId input : rule.lhs.inputs()) {
    match.inputs.push_back(s.values[static_cast<size_t>(input)]);
    match.types.push_back(s.graph.value(match.inputs.back()).type);
  }
  for (ValueId output : rule.lhs.outputs()) {
    match.outputs.push_back(s.values[static_cast<size_t>(output)]);
    match.output_types.push_back(s.graph.value(match.outputs.back()).type);
  }
  if (!rule.guard_holds(match.types) || !rule.operands_unbroadcast(s.graph, s.nodes))
    return MatchEvent::dropped_by(&MatchStats::guard_refused);
  match.instance = instance_of(rule, match, s.bindings);
  if (match.instance->dropped) return MatchEvent::dropped_by(match.instance->dropped);
  match.nodes = s.nodes;
  match.bindings = s.bindings;
  return {nullptr, std::move(match)};
}

// Every complete binding of the rules anchored at `anchor`, in rule name order, with what it came to.
std::vector<RuleMatcher::MatchEvent> RuleMatcher::events_at(const GraphFacts& facts, NodeId anchor,
                                                            RuleFilter filter) const {
  std::vector<MatchEvent> events;
  const Node& node = facts.graph.node(anchor);
  auto bucket = by_anchor_.find(anchor_key_of(node.op(), node.attrs));
  if (bucket == by_anchor_.end()) return events;
  Scratch scratch(facts);
  for (size_t index : bucket->second) {
    const CompiledRule& rule = *rules_.rules()[index];
    if ((filter == RuleFilter::OverConvs && !rule.over_convs) || (filter == RuleFilter::NotOverConvs && rule.over_convs))
      continue;
    if (!rule.anchor_inputs_fit(facts.graph, node)) continue;
    Backtracker backtracker(rule, scratch, [&] {
      events.push_back(complete_match(rule, scratch));
      return true;
    });
    backtracker.run(anchor);
  }
  return events;
}

// The proofs of a batch's pending matches, each distinct instance proved once (on every thread),
// those this matcher proved before recalled. Nothing is recorded here: match_rules records in order.
std::vector<std::pair<ProvedSides, ProofResult>> RuleMatcher::prove_batch(const std::vector<const PendingMatch*>& batch) const {
  std::vector<std::pair<ProvedSides, ProofResult>> proofs(batch.size());
  for_each_in_parallel(batch.size(), threads_, [&](size_t i) { find_sides_to_prove(*batch[i], proofs[i].first); });
  std::vector<size_t> to_prove;  // the first of each distinct key not proved before
  std::vector<size_t> same_as(batch.size(), batch.size());  // a later match of a key being proved: its first
  std::map<uint64_t, size_t> first_of_key;
  for (size_t i = 0; i < batch.size(); ++i) {
    ProvedSides& sides = proofs[i].first;
    if (!sides.lhs) {
      proofs[i].second.reason = "the f32 twin of the instance does not instantiate: " + sides.refusal;
    } else if (std::optional<ProofResult> known = recalled_proof(sides.key)) {
      proofs[i].second = std::move(*known);
    } else if (auto [first, added] = first_of_key.emplace(sides.key, i); added) {
      to_prove.push_back(i);
    } else {
      same_as[i] = first->second;
    }
  }
  for_each_in_parallel(to_prove.size(), threads_, [&](size_t k) {
    auto& [sides, proof] = proofs[to_prove[k]];
    proof = prove_or_recall(*sides.lhs, *sides.rhs, options_.prove);
  });
  for (size_t i = 0; i < batch.size(); ++i)
    if (same_as[i] != batch.size()) proofs[i].second = proofs[same_as[i]].second;
  return proofs;
}

// The events taken in (node, rule name) order as one thread would take them, until `room`
// applications: each batch proves as many pending matches as could still be applied (all of them
// are needed whatever their proofs say), and its proofs are recorded in order, so the
// applications, counts and failed instances do not depend on the thread count.
std::vector<std::pair<RuleMatcher::PendingMatch*, ProofResult>> RuleMatcher::take_in_order(
    const std::vector<MatchEvent*>& events, size_t room, MatchStats& stats) const {
  std::vector<std::pair<PendingMatch*, ProofResult>> applied;
  size_t next = 0;
  while (next < events.size() && applied.size() < room) {
    size_t end = next;
    std::vector<const PendingMatch*> batch;
    for (; end < events.size() && batch.size() < room - applied.size(); ++end)
      if (events[end]->pending) batch.push_back(&*events[end]->pending);
    std::vector<std::pair<ProvedSides, ProofResult>> proofs = prove_batch(batch);
    for (size_t i = next, k = 0; i < end; ++i) {
      ++stats.structural;
      if (!events[i]->pending) {
        ++(stats.*(events[i]->dropped));
        continue;
      }
      auto& [sides, proof] = proofs[k++];
      if (sides.lhs) record_proof(sides.key, *events[i]->pending->rule, *sides.lhs, proof);
      if (proof.status != ProofStatus::Proved) {
        ++stats.not_proved;
        continue;
      }
      ++stats.applied;
      applied.emplace_back(&*events[i]->pending, std::move(proof));
    }
    next = end;
  }
  return applied;
}

// Matches at every anchor node on every thread, taken in order (take_in_order), then each
// application's rewritten graph built on every thread after those already `found`.
void RuleMatcher::match_rules(const Graph& graph, RuleFilter filter, std::vector<RuleApplication>& found,
                              MatchStats& stats) const {
  GraphFacts facts(graph);
  std::vector<std::vector<MatchEvent>> at_node(graph.nodes().size());
  for_each_in_parallel(at_node.size(), threads_,
                       [&](size_t n) { at_node[n] = events_at(facts, static_cast<NodeId>(n), filter); });
  std::vector<MatchEvent*> events;
  for (std::vector<MatchEvent>& node_events : at_node)
    for (MatchEvent& event : node_events) events.push_back(&event);
  size_t room = options_.max_applications > found.size() ? options_.max_applications - found.size() : 0;
  std::vector<std::pair<PendingMatch*, ProofResult>> applied = take_in_order(events, room, stats);
  size_t first = found.size();
  found.resize(first + applied.size());
  for_each_in_parallel(applied.size(), threads_, [&](size_t i) {
    found[first + i] = rewritten(graph, *applied[i].first, std::move(applied[i].second));
  });
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
    for_each_in_parallel(found.size() - first, threads_, [&](size_t i) { restore_conv_biases(found[first + i].result); });
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

int64_t RuleMatcher::instances_built() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return instances_built_;
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
