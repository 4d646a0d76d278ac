// The TASO-style rule generator behind `pet-rules`: enumerate small programs per shape class,
// fingerprint them over Z_p, pair equal fingerprints, prune redundant pairs, prove the rest with
// Z3, and return proved and unproved rules sorted by content hash.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mutant/rules/candidate_pairs.h"
#include "mutant/rules/rule_library.h"

namespace pet::rules {

struct RuleGeneratorOptions {
  int max_ops = 3;                           // steps per program (each side of a rule)
  std::string classes = "all";               // comma-separated shape classes
  uint64_t seed = 1;                         // fingerprint inputs and the prover's numeric refutation
  int jobs = 2;                              // proving threads (the output does not depend on it)
  int64_t max_elements = 128;                // largest intermediate tensor enumerated
  size_t max_class_pairs = 45;               // all pairs of a fingerprint class up to this many
  std::chrono::milliseconds timeout{20000};  // per pair, a guard against hangs only
  uint64_t rlimit = 3000000;                 // per pair, Z3's deterministic resource limit
  // The settings that determine the output, as written in the rule files.
  nlohmann::ordered_json settings() const;
};

struct ClassCounts {
  std::string name;
  size_t programs = 0;
  PairingStats pairing;
  size_t proved = 0, unknown = 0, refuted = 0;
};

struct RuleGeneration {
  std::vector<ClassCounts> classes;
  std::vector<RuleRecord> proved;    // sorted by content hash
  std::vector<RuleRecord> unproved;  // Unknown and Refuted, sorted by content hash
  double enumerate_seconds = 0, pair_seconds = 0, prove_seconds = 0, total_seconds = 0;
};

// Runs every stage; progress lines (counts, times, the seed) go to `log` when given.
RuleGeneration generate_rules(const RuleGeneratorOptions& options, std::ostream* log = nullptr);

// The counts of every stage per class and in total, the TASO comparison line, and the times.
std::string summary_text(const RuleGeneration& generation);

// Wall-clock times: per stage and per rule's proof (kept out of the byte-stable rule files).
std::string timings_json(const RuleGeneration& generation);

// Writes library-CLASS.json and unproved-CLASS.json per shape class into `directory` (created
// when missing).
void write_rule_files(const RuleGeneration& generation, const RuleGeneratorOptions& options,
                      const std::string& directory);

}  // namespace pet::rules
