// The rule matcher: finds every place in a graph where a rule library rule's left side occurs
// (inputs bound consistently, no outside reader of a removed value, no cycle, shapes checked),
// builds the rewritten graph, and proves that instance with Z3 at the matched shapes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/graph.h"
#include "mutant/rules/rule_library.h"
#include "verifier/z3/prover.h"

namespace pet::search {

struct CompiledRule;  // a library rule with both sides parsed and indexed

// The proved rules, parsed once; both directions of bidirectional rules.
class RuleSet {
 public:
  static RuleSet from_library(const std::vector<rules::LibraryRule>& rules);
  static RuleSet load(const std::string& directory);  // read_rule_library + from_library
  size_t size() const;
  const std::vector<std::shared_ptr<const CompiledRule>>& rules() const { return rules_; }

 private:
  std::vector<std::shared_ptr<const CompiledRule>> rules_;
};

struct RuleApplication {
  std::string rule;                 // the rule's kebab-case name (with "(reversed)" when applied right to left)
  std::vector<NodeId> matched;      // parent nodes of the left side
  std::string location;             // their names, joined by ", "
  Graph result;                     // the rewritten graph (dead nodes removed)
  ProofResult proof;                // at the matched shapes; only Proved applications are returned
};

struct MatchOptions {
  ProveOptions prove;               // defaults: rlimit set, so answers are reproducible
  size_t max_applications = 256;    // per call, in (node order, rule name) order
  // Only rules whose right side has no more compute-heavy ops than the left (the search wants
  // rewrites that can lower cost; growing rules are for the α-search).
  bool only_non_growing = false;
};

// Instances are proved once per (rule, shapes) and remembered, so the search asks freely.
class RuleMatcher {
 public:
  explicit RuleMatcher(const RuleSet& rules, MatchOptions options = {});
  std::vector<RuleApplication> apply_all(const Graph& graph) const;
  int64_t proofs_run() const;
  int64_t proofs_failed() const;  // instances whose proof did not succeed at the matched shapes

 private:
  const RuleSet& rules_;
  MatchOptions options_;
  mutable std::mutex mutex_;
  mutable std::map<uint64_t, ProofResult> proof_cache_;
  mutable int64_t proofs_run_ = 0, proofs_failed_ = 0;
};

}  // namespace pet::search
