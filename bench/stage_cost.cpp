// Measures PET's stage mutants of a model against the stages they replace, end to end in a
// target runtime: each chain of convs joined by Relu or constant biases (a ResNet block's convs,
// the CSRNet back end) as a standalone program, and every stage move the search offers for it
// (one mutant family at every conv, full or corrected partial), after the finalize passes that
// cancel the layouts between its convs.
#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/structural_hash.h"
#include "core/text_ir.h"
#include "kernels/runtime/runtime.h"
#include "search/passes/cleanup.h"
#include "search/passes/finalize.h"
#include "search/generate/generate_stage.h"
#include "search/pipeline.h"
#include "search/search_space.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace {

constexpr const char* kUsage =
    "usage: pet_stage_cost MODEL TARGET [--threads N] [--stage-size N] [--runs N] [--profile-db FILE] [--print-ir]\n"
    "  MODEL: an ONNX model; its stages are chains of up to --stage-size convs (default 4) joined by\n"
    "         Relu or constant biases, each measured once however often it repeats\n"
    "  TARGET: ort-cpu or openvino-cpu (mutants are generated and ranked as pet-opt does, with kernel\n"
    "          groups timed in that runtime and kept in the profile DB); every stage and each of its\n"
    "          stage moves is then timed end to end, interleaved, --runs rounds (default 10) after 3\n"
    "          warm-up runs, with N threads (default 1)\n"
    "  --print-ir: also print each timed program's textual IR\n";

struct StageOptions {
  pet::OptimizeOptions optimize;
  std::string model;
  int runs = 10;
  bool print_ir = false;
};

int count_op(const pet::Graph& graph, const std::string& op) {
  return static_cast<int>(std::count_if(graph.nodes().begin(), graph.nodes().end(),
                                        [&](const pet::Node& node) { return node.op() == op; }));
}

// Layout ops (LayoutOverwrite counted apart: a correction whose layout may be the identity).
std::string layout_summary(const pet::Graph& graph) {
  return fmt::format("{} Layout, {} LayoutOverwrite", count_op(graph, "Layout"), count_op(graph, "LayoutOverwrite"));
}

struct Candidate {
  std::string label;
  pet::Graph graph;
  double predicted_us = 0;
};

// The stage as the search prices it (finalized), then every stage move over the whole of it.
std::vector<Candidate> stage_candidates(const pet::Graph& stage, size_t sites, const pet::cost::CostModel& cost,
                                        const StageOptions& stage_options) {
  const pet::OptimizeOptions& options = stage_options.optimize;
  using namespace pet::search;
  GeneratedMutants mutants = generate_mutants_stage(stage, cost, generate_options(options, cost));
  fmt::print("  generation: {} subprogram(s), {} full and {} partial mutants found, {} capped by the work budget\n",
             mutants.stats.subprograms(), mutants.stats.mutants_full, mutants.stats.mutants_partial, mutants.stats.capped);
  for (const GeneratedSubprogram& sub : mutants.subprograms) {
    std::set<std::string> families;
    for (const MutantOption& option : *sub.options)
      if (option.ends) families.insert(option.info.name + (option.partial ? " (partial)" : ""));
    fmt::print("    {}: {} option(s); layout-moving families: {}\n", sub.location, sub.options->size(),
               families.empty() ? "none" : fmt::format("{}", fmt::join(families, ", ")));
    if (stage_options.print_ir)
      for (const MutantOption& option : *sub.options) fmt::print("{}:\n{}", option.info.name, pet::print_graph(option.replacement));
  }
  SearchSpaceOptions space_options;
  space_options.stage_sites = static_cast<int>(sites);
  space_options.scored_per_expansion = 0;  // every stage move
  space_options.threads = 1;
  SearchSpace space(cost, nullptr, space_options, mutants.subprograms);
  std::vector<Candidate> candidates;
  pet::FinalizeOptions finalize_options;
  finalize_options.lowerings_for = &cost;
  pet::Graph original = stage;
  pet::finalize(original, finalize_options);
  candidates.push_back({"original", original, cost.graph_cost(original)});
  pet::SearchStats stats;
  std::string prefix = fmt::format("stage of {}: ", sites);
  for (const Program& move : space.expand(space.make_program(stage, {}), {false, true, true}, stats,
                                          [](uint64_t) { return true; }, SearchBudget{})) {
    const pet::Transformation& step = move.history.back();
    if (step.name.rfind(prefix, 0) != 0) continue;
    pet::Graph finalized = move.graph;
    pet::finalize(finalized, finalize_options);
    std::string kind = step.evidence_kind == pet::EvidenceKind::partial_correction ? "partial, corrected" : "full";
    candidates.push_back({fmt::format("{} ({}; {})", step.name.substr(prefix.size()), kind, layout_summary(finalized)),
                          finalized, cost.graph_cost(finalized)});
  }
  return candidates;
}

void time_and_print(pet::runtime::Runtime& runtime, const std::vector<Candidate>& candidates, const StageOptions& options) {
  std::vector<pet::runtime::ModelBytes> models;
  pet::ExportOptions form = runtime.export_options();
  for (const Candidate& candidate : candidates)
    models.push_back(pet::runtime::ModelBytes::written_from(candidate.graph, form));
  pet::runtime::TimingOptions timing{.threads = options.optimize.target.spec.runtime_threads(), .warmup = 3, .runs = options.runs,
                                     .per_node = false, .seed = options.optimize.seed, .purpose = {}};
  std::vector<std::string> refused;
  std::vector<pet::runtime::Timing> timings = pet::runtime::time_accepted(runtime, models, timing, refused);
  double original_us = pet::cost::median_of(timings[0].runs_us);
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!refused[i].empty()) {
      fmt::print("  {:<14} refused by the runtime: {}  {}\n", "", refused[i], candidates[i].label);
      continue;
    }
    double median = pet::cost::median_of(timings[i].runs_us);
    fmt::print("  {:>10.1f} ± {:<7.1f} {:>7.3f}x  predicted {:>10.1f} us  {}\n", median,
               pet::cost::half_iqr(timings[i].runs_us), original_us / median, candidates[i].predicted_us,
               candidates[i].label);
  }
}

// The model's stages, each with how often it occurs: windows whose convs share their subprogram
// keys are one stage, kept at its first window.
std::vector<std::pair<std::vector<size_t>, size_t>> distinct_stages(const pet::Graph& graph,
                                                                    const std::vector<pet::search::Subprogram>& subs,
                                                                    int stage_size) {
  std::vector<std::pair<std::vector<size_t>, size_t>> stages;
  std::map<std::vector<uint64_t>, size_t> index_of;
  for (const std::vector<size_t>& window : pet::search::longest_stage_windows(graph, subs, stage_size)) {
    std::vector<uint64_t> keys;
    for (size_t site : window) keys.push_back(pet::search::subprogram_key(subs[site]));
    auto [found, added] = index_of.emplace(std::move(keys), stages.size());
    if (added) stages.push_back({window, 0});
    ++stages[found->second].second;
  }
  return stages;
}

int measure_stages(const StageOptions& options) {
  pet::TargetSetup target;
  pet::open_target(options.optimize.target_options(), target);
  if (!target.runtime)
    throw pet::UserError(fmt::format("pet_stage_cost times stages in a runtime: give ort-cpu or openvino-cpu, not '{}'\n{}",
                                     options.optimize.target.spec.name(), kUsage));
  const pet::cost::CostModel& cost = *target.cost;
  pet::Graph graph = pet::import_onnx(options.model);
  pet::cleanup(graph);
  fmt::print("{}; {}; {} thread(s); {} runs per program, medians ± half the IQR, speedup against the original stage\n",
             options.model, cost.measurement()->target.describe(), options.optimize.target.spec.runtime_threads(), options.runs);
  using namespace pet::search;
  std::vector<Subprogram> subs = subprograms_to_mutate(graph, conv_only_regions());
  for (const auto& [window, repeats] : distinct_stages(graph, subs, options.optimize.space.stage_sites)) {
    pet::Graph stage = stage_program(graph, subs, window);
    std::vector<std::string> locations;
    for (size_t site : window) locations.push_back(subs[site].location);
    fmt::print("stage {} ({} convs, input {}; {} such stage(s) in the model):\n", fmt::join(locations, " -> "),
               window.size(), stage.value(stage.inputs().at(0)).type.to_string(), repeats);
    std::vector<Candidate> candidates = stage_candidates(stage, window.size(), cost, options);
    if (options.print_ir)
      for (const Candidate& candidate : candidates) fmt::print("{}:\n{}", candidate.label, pet::print_graph(candidate.graph));
    if (candidates.size() == 1) fmt::print("  no stage move: no mutant family has an option at every conv\n");
    time_and_print(*target.runtime, candidates, options);
  }
  pet::cost::CostSources sources = cost.sources();
  fmt::print("kernel groups: {} measured ({:.1f} s), {} replayed; profile DB {}\n", sources.measured,
             sources.measuring_seconds, sources.replayed, target.profile_db);
  target.save_measurements();
  return 0;
}

StageOptions parse_arguments(const std::vector<std::string>& arguments) {
  pet::CliArgs args("pet_stage_cost", arguments, {"--threads", "--stage-size", "--runs", "--profile-db"}, {"--print-ir"});
  if (args.positionals().size() != 2)
    throw pet::UserError(fmt::format("takes a model and a target, got {} argument(s)\n{}", args.positionals().size(), kUsage));
  StageOptions options;
  options.model = args.positionals()[0];
  options.optimize.target.spec =
      pet::TargetSpec::parse(args.positionals()[1], static_cast<int>(args.integer("--threads", 1, 1, 1024)));
  options.optimize.space.stage_sites = static_cast<int>(args.integer("--stage-size", 4, 2, 16));
  options.runs = static_cast<int>(args.integer("--runs", 10, 1, 1000));
  options.optimize.target.profile_db = args.last("--profile-db").value_or("");
  options.print_ir = args.has("--print-ir");
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  return pet::guarded_main("pet_stage_cost", kUsage, argc, argv,
                           [](const std::vector<std::string>& arguments) { return measure_stages(parse_arguments(arguments)); });
}
