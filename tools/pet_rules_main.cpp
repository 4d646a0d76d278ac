// pet-rules: a thin main over pet::rules::generate_rules, writing the rule library's JSON files.
#include <fmt/format.h>

#include <iostream>

#include "core/file_safety.h"
#include "mutant/rules/rule_generator.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace {

constexpr const char* kHelp = R"(usage: pet-rules [options]

Enumerates small graphs over the rule operator set, pairs those with equal fingerprints over Z_p,
prunes redundant pairs, proves the rest with Z3, and writes per shape class OUT/library-CLASS.json
(proved rules) and OUT/unproved-CLASS.json (unknown and refuted pairs, never used).

options:
  --out DIR           where the rule files go (default mutant/rules)
  --max-ops N         steps per side, 1..5 (default 3)
  --classes LIST      comma-separated shape classes: elementwise, matmul, conv, all (default all:
                      those three), taso (the hand-written TASO substitutions)
  --seed N            fingerprint inputs and numeric refutation (default 1)
  --jobs N            proving threads (default 2; the output does not depend on it)
  --rlimit N          Z3 resource limit per pair (default 3000000)
  --timeout-ms N      Z3 time limit per pair, a hang guard only (default 20000)
  --timings FILE      also write wall-clock times (per stage, per proof) as JSON
  -h, --help          this text

The committed library is `pet-rules --out mutant/rules` with the defaults.
)";

pet::rules::RuleGeneratorOptions parse_options(const pet::CliArgs& args) {
  pet::rules::RuleGeneratorOptions options;
  options.max_ops = static_cast<int>(args.integer("--max-ops", options.max_ops, 1, 5));
  options.classes = args.last("--classes").value_or(options.classes);
  options.seed = static_cast<uint64_t>(args.integer("--seed", 1, 0, INT64_MAX));
  options.jobs = static_cast<int>(args.integer("--jobs", options.jobs, 1, 64));
  options.rlimit = static_cast<uint64_t>(args.integer("--rlimit", 3000000, 0, UINT32_MAX));
  options.timeout = std::chrono::milliseconds(args.integer("--timeout-ms", 20000, 1, 3600000));
  return options;
}

int run(const std::vector<std::string>& raw) {
  pet::CliArgs args("pet-rules", raw,
                    {"--out", "--max-ops", "--classes", "--seed", "--jobs", "--rlimit", "--timeout-ms", "--timings"},
                    {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kHelp;
    return 0;
  }
  pet::rules::RuleGeneratorOptions options = parse_options(args);
  pet::rules::RuleGeneration generation = pet::rules::generate_rules(options, &std::cout);
  std::string out = args.last("--out").value_or("mutant/rules");
  pet::rules::write_rule_files(generation, options, out);
  std::cout << pet::rules::summary_text(generation);
  std::cout << fmt::format("wrote {}/library-CLASS.json ({} rules) and {}/unproved-CLASS.json ({} pairs)\n", out,
                           generation.proved.size(), out, generation.unproved.size());
  if (auto timings = args.last("--timings"))
    pet::write_file_atomically(*timings, pet::rules::timings_json(generation), "rule timings");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return pet::run_guarded("pet-rules", std::cerr, [&] { return run({argv + 1, argv + argc}); });
}
