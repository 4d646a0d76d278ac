// libFuzzer target: pet's optimize pipeline on small random valid graphs (analytic H100 model, tiny budgets).
//
// The bytes choose the search mode, the budgets' seed and a graph (fuzz/random_graph.h). Nothing
// is timed and no profile DB is written. A failed final differential check, any exception
// (UserError included: the graph is valid), a crash, a leak or undefined behaviour is a finding.
// PET_FUZZ_PRINT=1 prints each graph's textual IR before optimizing it (to replay a finding).
#include <fuzzer/FuzzedDataProvider.h>
#include <fmt/format.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/memo.h"
#include "core/text_ir.h"
#include "fuzz/random_graph.h"
#include "search/pipeline.h"
#include "search/rules/rule_matcher.h"

namespace {

// Every 64th rule of each committed library file: the matcher and the rewrites run on every
// execution without parsing the whole library (about 2,700 rules) each time.
constexpr size_t kRuleStride = 64;

std::string write_rule_sample() {
  std::string folder = (std::filesystem::temp_directory_path() / "pet-fuzz-rules-XXXXXX").string();
  if (mkdtemp(folder.data()) == nullptr) std::abort();
  for (const char* shape_class : {"conv", "elementwise", "matmul"}) {
    std::string name = fmt::format("library-{}.json", shape_class);
    std::ifstream in(std::string(PET_RULES_DIR) + "/" + name);
    nlohmann::ordered_json library = nlohmann::ordered_json::parse(in);
    nlohmann::ordered_json sample = nlohmann::ordered_json::array();
    for (size_t i = 0; i < library["rules"].size(); i += kRuleStride) sample.push_back(library["rules"][i]);
    library["count"] = sample.size();
    library["rules"] = std::move(sample);
    std::ofstream(folder + "/" + name) << library.dump();
  }
  return folder;
}

// Loaded once (parsing and compiling the sample on every execution took a fifth of its time);
// the folder written for it is removed right away.
std::shared_ptr<const pet::search::RuleSet> load_rule_sample() {
  std::string folder = write_rule_sample();
  auto rules = std::make_shared<const pet::search::RuleSet>(pet::search::RuleSet::load(folder));
  std::filesystem::remove_all(folder);
  return rules;
}

std::shared_ptr<const pet::search::RuleSet> rule_sample() {
  static const std::shared_ptr<const pet::search::RuleSet> rules = load_rule_sample();
  return rules;
}

pet::OptimizeOptions fuzz_options(FuzzedDataProvider& bytes) {
  pet::OptimizeOptions options;
  const pet::Mode modes[] = {pet::Mode::pet_neq_only, pet::Mode::pet, pet::Mode::taso, pet::Mode::pet_eq_only,
                             pet::Mode::none};
  options.mode = modes[bytes.ConsumeIntegralInRange<size_t>(0, 4)];
  options.search.taso_search = bytes.ConsumeBool() ? pet::TasoSearch::beam : pet::TasoSearch::alpha;
  options.target.spec = pet::TargetSpec::parse("h100");  // replayed from its DB: nothing is timed
  options.target.replay = true;
  options.hooks.rule_set = rule_sample();
  options.search.beam = 2;
  options.search.limits.max_expansions = bytes.ConsumeIntegralInRange<int64_t>(1, 4);
  options.search.limits.max_candidates = 24;
  options.generate.work = 5'000;  // mutant generation dominates an execution (20,000 ran half as many)
  options.space.scored_per_expansion = 2;
  options.generate.mutation_rounds = 1;
  options.generate.generator.max_placements = 30;  // the enumeration itself: a group of three tiny convs took seconds
  options.generate.top_k = 2;
  options.generate.threads = options.space.threads = 1;
  options.search.limits.time_limit_s = 60;  // a backstop: the counted budgets above end every search
  options.seed = bytes.ConsumeIntegral<uint16_t>();
  return options;
}

// Counts this process's calls and how many repeat the input of the call before: libFuzzer runs an
// execution again when it ended with more allocations than frees (to look for a leak), and counts
// that run among its executed units. Printed every 1,024 calls so the figures can be separated.
void count_call(const uint8_t* data, size_t size) {
  static uint64_t calls = 0, repeats = 0;
  static size_t previous = 0;  // a hash: keeping the bytes would allocate inside the execution
  size_t input = std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(data), size));
  ++calls;
  if (calls > 1 && input == previous) ++repeats;
  previous = input;
  if (calls % 1024 == 0)
    std::fprintf(stderr, "fuzz_pet_opt: %llu calls, %llu of them repeat the input of the call before\n",
                 static_cast<unsigned long long>(calls), static_cast<unsigned long long>(repeats));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  count_call(data, size);
  FuzzedDataProvider bytes(data, size);
  pet::OptimizeOptions options = fuzz_options(bytes);
  pet::Graph graph = pet::fuzz::random_graph(bytes);
  bool print = getenv("PET_FUZZ_PRINT") != nullptr;
  if (print) std::fprintf(stderr, "mode %s, seed %llu\n%s", pet::to_string(options.mode).c_str(),
                          static_cast<unsigned long long>(options.seed), pet::print_graph(graph).c_str());
  pet::OptimizeResult result = pet::optimize(graph, options);
  if (!result.check.passed) {
    std::fprintf(stderr, "fuzz_pet_opt: the differential check failed (mode %s, seed %llu)\n--- input:\n%s--- optimized:\n%s%s",
                 pet::to_string(options.mode).c_str(), static_cast<unsigned long long>(options.seed), pet::print_graph(graph).c_str(),
                 pet::print_graph(result.graph).c_str(), pet::report_table(result).c_str());
    std::abort();
  }
  if (print) std::fprintf(stderr, "optimized (%s):\n%s", pet::to_string(result.search.stop_reason).c_str(), pet::print_graph(result.graph).c_str());
  // The process-wide memos would otherwise keep this execution's answers, and libFuzzer re-runs
  // every execution that ends with more allocations than frees to look for a leak. Instance
  // proofs are kept (OnForget::Keep): an execution that adds one is re-run, the rest recall them.
  pet::forget_memos();
  return 0;
}
