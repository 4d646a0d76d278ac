// TASO's well-known substitutions that the enumerated shape classes cannot find (their ops or
// input shapes are outside the classes), written by hand as declarative rules. They enter the
// library like every other rule: `pet-rules --classes taso` proves each with the same Z3 prover
// and writes library-taso.json; the matcher proves every application again at its shapes.
#pragma once

#include <string>
#include <vector>

#include "mutant/rules/prove_pairs.h"
#include "mutant/rules/rule_library.h"

namespace pet::rules {

struct NamedRule {
  std::string name;          // kebab-case, as logs and reports show it
  std::string substitution;  // the substitution in words, with the guard its shapes express
  std::string inputs;        // input lines shared by both sides
  std::string lhs;           // node and output lines of each side
  std::string rhs;
  bool bidirectional = false;  // the right side may be rewritten to the left too
  std::vector<std::string> per_channel = {};  // guard: inputs that are [1,C,1,...] where it applies
};

// The table, in a fixed order.
const std::vector<NamedRule>& named_rules();

// The proof jobs and records (proof left empty) of the named rules, shape class `shape_class`.
void named_candidates(const std::string& shape_class, std::vector<ProofJob>& jobs, std::vector<RuleRecord>& records);

}  // namespace pet::rules
