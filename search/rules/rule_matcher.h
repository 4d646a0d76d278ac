// The rule matcher: finds every place in a graph where a rule library rule's left side occurs
// (inputs bound consistently, no outside reader of a removed value, no cycle, shapes checked),
// builds the rewritten graph, and proves that instance with Z3 at the matched shapes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "mutant/rules/rule_library.h"
#include "verifier/z3/prover.h"

namespace pet::search {

struct CompiledRule;  // a library rule with both sides parsed and indexed
struct AttrBinding;   // a variable attribute of a rule bound to a graph node's value

// The proved rules, parsed once; both directions of bidirectional rules.
class RuleSet {
 public:
  static RuleSet from_library(const std::vector<rules::LibraryRule>& rules);
  static RuleSet load(const std::string& directory);  // read_rule_library + from_library
  size_t size() const;
  const std::vector<std::shared_ptr<const CompiledRule>>& rules() const { return rules_; }  // sorted by name
  // Directions left out, with why (a left side that is no connected subgraph, ...).
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  std::vector<std::shared_ptr<const CompiledRule>> rules_;
  std::vector<std::string> skipped_;
};

struct RuleApplication {
  std::string rule;                 // the rule's kebab-case name (with "(reversed)" when applied right to left)
  std::vector<NodeId> matched;      // nodes of the left side (of the bias-free view for rules over convs)
  std::string location;             // their names, joined by ", "
  Graph result;                     // the rewritten graph (dead nodes removed)
  ProofResult proof;                // at the matched shapes; only Proved applications are returned
};

// The rule generator's Z3 settings: a deterministic resource limit decides, the timeout only
// guards against a stuck solver.
ProveOptions default_instance_prove_options();

// How many instance proofs this process remembers (for every matcher; see RuleMatcher::proofs_run).
size_t remembered_instance_proofs();

struct MatchOptions {
  ProveOptions prove = default_instance_prove_options();  // rlimit set, so answers are reproducible
  size_t max_applications = 256;    // per call, in (node order, rule name) order
  // Only rules whose right side has no more compute-heavy ops than the left (the search wants
  // rewrites that can lower cost; growing rules are for the α-search).
  bool only_non_growing = false;
  // Threads matching and proving (0: every core). Matching times nothing, so a measured target
  // that times on one thread still matches on these; the applications do not depend on it.
  int threads = 0;
};

// Why candidate matches were dropped in one apply_all call (each counted once, first reason).
struct MatchStats {
  int64_t structural = 0;         // left sides found: ops, attributes and bindings agree
  int64_t outside_reader = 0;     // a value the rewrite removes is read outside the match or exported
  int64_t cycle = 0;              // a bound input depends on a matched node
  // the rewrite would do arithmetic over values other than f32 (verifier/element_domain.h: rules
  // are proved over the reals; only rules that move elements alone hold for every element type)
  int64_t element_type_refused = 0;
  int64_t guard_refused = 0;      // the rule's guard fails at the matched types (per-channel inputs)
  int64_t shape_refused = 0;      // the right side's shape rules fail at the matched types
  int64_t type_mismatch = 0;      // the right side's outputs have other types than the matched ones
  int64_t not_proved = 0;         // Z3 did not prove the instance at the matched shapes
  int64_t applied = 0;
  int64_t skipped_growing = 0;    // rules left out by only_non_growing (counted per RuleMatcher)
  void add(const MatchStats& more);  // sums every count but skipped_growing
};

// A rule instance that did not prove at the matched shapes.
struct FailedInstance {
  std::string rule;         // the rule direction's name
  std::string input_types;  // the matched input types, "f32[1,64,56,56], f32[64,64,3,3]"
  ProofStatus status = ProofStatus::Unknown;
  std::string reason;       // the prover's reason
  std::string describe() const;  // "RULE at TYPES: STATUS (REASON)", for reports
};

// Instances are proved once per (rule, shapes) and remembered, so the search asks freely.
class RuleMatcher {
 public:
  explicit RuleMatcher(const RuleSet& rules, MatchOptions options = {});
  // Every proved application, at most max_applications: the rules without a Conv on their left
  // side in (anchor node order, rule name) order, then the rules over convs in the same order,
  // matched in the bias-free view of the graph (biased convs as Conv + per-channel Add) with the
  // biases fused back into each result where the rewritten conv still fits (so `matched` then
  // numbers the view's nodes; the names are the graph's).
  std::vector<RuleApplication> apply_all(const Graph& graph, MatchStats* stats = nullptr) const;
  // Instances this matcher needed a proof of; a proof an earlier matcher of this process made of
  // the same instance (same sides and prove options) is recalled, not run again.
  int64_t proofs_run() const;
  int64_t proofs_failed() const;  // instances whose proof did not succeed at the matched shapes
  // Those instances, in the order they were first tried: which rule, at which input types, and
  // the prover's status and reason (so a report can say whether a guard or the prover is missing).
  std::vector<FailedInstance> failed_instances() const;
  // Rule instances (both sides at a match's types and bindings) this matcher built: each once,
  // however many programs match it again.
  int64_t instances_built() const;
  // How many applications apply_all returned per rule direction name, over all calls.
  std::map<std::string, int64_t> applications_by_rule() const;

  // rule_matcher.cpp's working types: one call's graph facts, one thread's binding, a binding that
  // passed every check but the proof, what a binding came to, the sides a match is proved at.
  struct GraphFacts;
  struct Scratch;
  struct PendingMatch;
  struct MatchEvent;
  struct ProvedSides;
  // A rule's instance at one match's types and bindings: both sides, or the check they fail
  // (shape_refused, element_type_refused or type_mismatch) with no sides.
  struct Instance {
    const CompiledRule* rule = nullptr;  // what it is an instance of: the memo's key in full
    std::vector<TensorType> types, output_types;
    std::vector<AttrBinding> bindings;
    Graph lhs, rhs;
    int64_t MatchStats::*dropped = nullptr;
  };

 private:
  enum class RuleFilter : uint8_t { All, OverConvs, NotOverConvs };
  void match_rules(const Graph& graph, RuleFilter filter, std::vector<RuleApplication>& found, MatchStats& stats) const;
  std::vector<MatchEvent> events_at(const GraphFacts& facts, NodeId anchor, RuleFilter filter) const;
  MatchEvent complete_match(const CompiledRule& rule, Scratch& scratch) const;
  std::shared_ptr<const Instance> instance_of(const CompiledRule& rule, const PendingMatch& match,
                                              const std::vector<AttrBinding>& bindings) const;
  std::vector<std::pair<ProvedSides, ProofResult>> prove_batch(const std::vector<const PendingMatch*>& batch) const;
  std::vector<std::pair<PendingMatch*, ProofResult>> take_in_order(const std::vector<MatchEvent*>& events,
                                                                   size_t room, MatchStats& stats) const;
  std::optional<ProofResult> recalled_proof(uint64_t key) const;
  void record_proof(uint64_t key, const CompiledRule& rule, const Graph& lhs, const ProofResult& proof) const;

  const RuleSet& rules_;
  std::map<uint64_t, std::vector<size_t>> by_anchor_;  // anchor key -> rule indices, by name
  int64_t skipped_growing_ = 0;
  MatchOptions options_;
  unsigned threads_;  // options_.threads, 0 resolved to the core count
  mutable std::mutex mutex_;
  mutable std::map<uint64_t, ProofResult> proof_cache_;
  static constexpr size_t kRememberedInstances = 1 << 14;
  mutable std::unordered_map<uint64_t, std::shared_ptr<const Instance>> instances_;
  mutable int64_t instances_built_ = 0;
  mutable int64_t proofs_run_ = 0;
  mutable std::vector<FailedInstance> failed_;
  mutable std::map<std::string, int64_t> applications_by_rule_;
};

}  // namespace pet::search
