// The rule library's JSON files, one pair per shape class: proved rules (library-CLASS.json) and
// the pairs Z3 did not prove (unproved-CLASS.json), each rule a kebab-case name, both sides in
// textual IR, its constraints and proof.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verifier/z3/prover.h"

namespace pet::rules {

struct RuleRecord {
  std::string name;         // kebab-case, from the ops of both sides and the content hash
  std::string shape_class;  // the class whose shapes the rule was found and proved at
  std::string lhs;          // textual IR
  std::string rhs;
  nlohmann::ordered_json constraints;  // input types, symbolic shapes, dimension values, guard
  bool bidirectional = false;          // both sides read the same inputs, so either may be rewritten
  uint64_t content_hash = 0;           // canonical pair key: the sort key of the files
  ProofResult proof;
};

// {"generator": settings, "rules": [...]}, rules in the order given; the proof's reason is
// written only when `with_reason` (unproved pairs). Wall-clock times are never written here.
std::string rules_json(const nlohmann::ordered_json& settings, const std::vector<RuleRecord>& rules, bool with_reason);

// A rule as read back from a library file.
struct LibraryRule {
  std::string name;
  std::string lhs;
  std::string rhs;
  std::string status;
  std::vector<std::string> axioms_used;
  bool bidirectional = false;  // the right side may be rewritten to the left too
  // Guard: inputs that must be per-channel tensors [1,C,1,...] wherever the rule is applied
  // (constraints.per_channel; hand-written rules about biases and scales).
  std::vector<std::string> per_channel;
};

// Reads one rule file; UserError naming the file when it is missing or malformed.
std::vector<LibraryRule> read_rule_file(const std::string& path);

// "library-conv.json" / "unproved-conv.json": one file per class keeps each small and diffable.
std::string library_file_name(const std::string& shape_class);
std::string unproved_file_name(const std::string& shape_class);

// Every proved rule in `directory` (all library-*.json files, in file-name order); UserError when
// there is none.
std::vector<LibraryRule> read_rule_library(const std::string& directory);

}  // namespace pet::rules
