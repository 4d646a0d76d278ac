// The generator's stages, one function each, timed and counted.
#include "mutant/rules/rule_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/file_safety.h"
#include "mutant/rules/named_rules.h"
#include "mutant/rules/rule_records.h"

namespace pet::rules {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// One class's candidates, their graphs and records, waiting for proofs.
struct ClassCandidates {
  std::vector<ProofJob> jobs;
  std::vector<RuleRecord> records;
};

ClassCandidates collect_candidates(const ShapeClass& shape_class, const RuleGeneratorOptions& options,
                                   ClassCounts& counts, RuleGeneration& generation) {
  ClassCandidates candidates;
  if (shape_class.named) {
    named_candidates(shape_class.name, candidates.jobs, candidates.records);
    counts.programs = 2 * candidates.jobs.size();
    return candidates;
  }
  auto start = Clock::now();
  std::vector<EnumeratedProgram> programs =
      enumerate_programs(shape_class, {options.max_ops, options.max_elements, options.seed});
  counts.programs = programs.size();
  generation.enumerate_seconds += seconds_since(start);
  start = Clock::now();
  for (const CandidatePair& pair : candidate_pairs(shape_class, programs, options.max_class_pairs, counts.pairing)) {
    candidates.jobs.push_back(pair_graphs(shape_class, programs, pair));
    candidates.records.push_back(make_record(shape_class, programs, pair, candidates.jobs.back()));
  }
  generation.pair_seconds += seconds_since(start);
  return candidates;
}

void sort_by_content(std::vector<RuleRecord>& records) {
  std::sort(records.begin(), records.end(), [](const RuleRecord& a, const RuleRecord& b) {
    return std::tie(a.content_hash, a.name) < std::tie(b.content_hash, b.name);
  });
}

void file_results(std::vector<RuleRecord>& records, const std::vector<ProofResult>& results, ClassCounts& counts,
                  RuleGeneration& generation) {
  for (size_t i = 0; i < records.size(); ++i) {
    records[i].proof = results[i];
    switch (results[i].status) {
      case ProofStatus::Proved:
        ++counts.proved;
        generation.proved.push_back(std::move(records[i]));
        break;
      case ProofStatus::Unknown:
        ++counts.unknown;
        generation.unproved.push_back(std::move(records[i]));
        break;
      case ProofStatus::Refuted:
        ++counts.refuted;
        generation.unproved.push_back(std::move(records[i]));
        break;
    }
  }
}

void log_class(std::ostream* log, const ClassCounts& c) {
  if (!log) return;
  const PairingStats& p = c.pairing;
  *log << fmt::format(
      "{}: {} programs, {} fingerprint classes ({} shared), {} candidate pairs, pruned {} common-subgraph + {} "
      "common-context + {} one-sided + {} renaming + {} substitution, {} to prove: {} proved, {} unknown, {} refuted\n",
      c.name, c.programs, p.fingerprint_classes, p.shared_classes, p.candidate_pairs, p.common_subgraph,
      p.common_context, p.one_sided_inputs, p.renamings, p.substitutions, p.kept, c.proved, c.unknown, c.refuted);
}

ProveOptions prove_options(const RuleGeneratorOptions& options) {
  ProveOptions prove;
  prove.timeout = options.timeout;
  prove.rlimit = options.rlimit;
  prove.seed = options.seed;
  return prove;
}

}  // namespace

nlohmann::ordered_json RuleGeneratorOptions::settings() const {
  nlohmann::ordered_json json;
  json["max_ops"] = max_ops;
  std::vector<std::string> names;
  for (const ShapeClass& c : select_shape_classes(classes)) names.push_back(c.name);
  json["classes"] = names;
  json["seed"] = seed;
  json["max_elements"] = max_elements;
  json["max_class_pairs"] = max_class_pairs;
  json["z3_rlimit"] = rlimit;
  json["z3_timeout_ms"] = timeout.count();
  json["guard"] =
      "each rule holds for exactly the input types in its constraints and the attributes written in its "
      "sides; other sizes of the symbolic dimensions need a proof at those sizes";
  return json;
}

RuleGeneration generate_rules(const RuleGeneratorOptions& options, std::ostream* log) {
  if (options.max_ops < 1 || options.max_ops > 5) throw UserError("--max-ops must be between 1 and 5");
  auto start = Clock::now();
  RuleGeneration generation;
  if (log)
    *log << fmt::format("pet-rules: seed {}, up to {} ops, {} proving threads\n", options.seed, options.max_ops,
                        options.jobs);
  for (const ShapeClass& shape_class : select_shape_classes(options.classes)) {
    ClassCounts counts;
    counts.name = shape_class.name;
    ClassCandidates candidates = collect_candidates(shape_class, options, counts, generation);
    auto prove_start = Clock::now();
    std::vector<ProofResult> results = prove_all(candidates.jobs, prove_options(options), options.jobs);
    generation.prove_seconds += seconds_since(prove_start);
    file_results(candidates.records, results, counts, generation);
    log_class(log, counts);
    generation.classes.push_back(counts);
  }
  sort_by_content(generation.proved);
  sort_by_content(generation.unproved);
  generation.total_seconds = seconds_since(start);
  return generation;
}

std::string summary_text(const RuleGeneration& g) {
  ClassCounts total;
  for (const ClassCounts& c : g.classes) {
    total.programs += c.programs;
    total.pairing.fingerprint_classes += c.pairing.fingerprint_classes;
    total.pairing.candidate_pairs += c.pairing.candidate_pairs;
    total.pairing.kept += c.pairing.kept;
    total.proved += c.proved;
    total.unknown += c.unknown;
    total.refuted += c.refuted;
  }
  return fmt::format(
      "total: {} programs enumerated, {} fingerprint classes, {} candidate pairs, {} after pruning, "
      "{} proved, {} unknown, {} refuted\n"
      "time: {:.1f} s (enumerate {:.1f} s, pair and prune {:.1f} s, prove {:.1f} s)\n"
      "TASO for comparison: about 743 rules from graphs of up to 4 ops, about 5 min generation + 10 min "
      "verification\n",
      total.programs, total.pairing.fingerprint_classes, total.pairing.candidate_pairs, total.pairing.kept,
      total.proved, total.unknown, total.refuted, g.total_seconds, g.enumerate_seconds, g.pair_seconds,
      g.prove_seconds);
}

std::string timings_json(const RuleGeneration& g) {
  nlohmann::ordered_json json;
  json["total_seconds"] = g.total_seconds;
  json["enumerate_seconds"] = g.enumerate_seconds;
  json["pair_seconds"] = g.pair_seconds;
  json["prove_seconds"] = g.prove_seconds;
  nlohmann::ordered_json proofs;
  for (const auto* list : {&g.proved, &g.unproved})
    for (const RuleRecord& rule : *list) proofs[rule.name] = rule.proof.seconds;
  json["proof_seconds"] = proofs;
  return json.dump(2) + "\n";
}

void write_rule_files(const RuleGeneration& generation, const RuleGeneratorOptions& options,
                      const std::string& directory) {
  std::filesystem::create_directories(directory);
  // Each file through a temporary beside it, every write checked, then renamed: a full disk is an
  // error, never a truncated rule library.
  auto write = [&](const std::string& name, const std::string& text) {
    write_file_atomically((std::filesystem::path(directory) / name).string(), text, "rule file");
  };
  for (const ClassCounts& counts : generation.classes) {
    auto of_class = [&](const std::vector<RuleRecord>& all) {
      std::vector<RuleRecord> selected;
      for (const RuleRecord& rule : all)
        if (rule.shape_class == counts.name) selected.push_back(rule);
      return selected;
    };
    write(library_file_name(counts.name), rules_json(options.settings(), of_class(generation.proved), false));
    write(unproved_file_name(counts.name), rules_json(options.settings(), of_class(generation.unproved), true));
  }
}

}  // namespace pet::rules
