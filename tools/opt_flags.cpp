// The table of pet-opt's flags and what is built from it: the allow-list, the reading, --help.
#include "tools/opt_flags.h"

#include <cstdint>
#include <type_traits>

#include <fmt/format.h>

#include "core/error.h"
#include "search/passes/named_passes.h"
#include "search/vocabulary.h"

namespace pet {
namespace {

constexpr const char* kUsage = R"(usage: pet-opt [options] model.onnx|model.pet

Optimizes an ONNX model for the runtime it will run in with fully and partially equivalent
transformations, corrects the partial ones, times the best programs against the input in that
runtime and writes the fastest (never one slower than the input), checks the written file against
the original (imported again, on three input draws, and in the target runtime) before putting it
in place, and reports every change. A file named *.pet or *.ir, read or written, is pet's
textual IR (the form PET_DEBUG=1 prints) instead of ONNX.

options:
)";

constexpr const char* kEpilogue = R"(
exit status: 0 optimized and checked; 1 internal error or the check failed; 2 user error.
Set PET_DEBUG=1 to print the textual IR after every pipeline stage.
)";

// The defaults --help states, read from the options as a default run has them.
const OptimizeOptions& defaults() {
  static const OptimizeOptions options;
  return options;
}

// A field of OptimizeOptions through its groups, for the default options and a request's alike:
// field(&OptimizeOptions::search, &SearchOptions::beam) reaches options.search.beam.
template <typename... Members>
auto field(Members... members) {
  return [members...](auto& options) -> auto& { return (options .* ... .* members); };
}

template <typename Field>
std::function<std::string()> shows(Field field) {
  return [field] { return fmt::format("{}", field(defaults())); };
}

// Reading helpers: each sets its field only when the flag is given, range-checked by CliArgs.
template <typename Field>
std::function<void(const CliArgs&, OptRequest&)> integer(const std::string& flag, Field field, int64_t low,
                                                         int64_t high) {
  return [flag, field, low, high](const CliArgs& args, OptRequest& request) {
    auto& value = field(request.optimize);
    using Value = std::remove_reference_t<decltype(value)>;
    value = static_cast<Value>(args.integer(flag, static_cast<int64_t>(value), low, high));
  };
}

template <typename Field>
std::function<void(const CliArgs&, OptRequest&)> number(const std::string& flag, Field field) {
  return [flag, field](const CliArgs& args, OptRequest& request) {
    double& value = field(request.optimize);
    value = args.number(flag, value);
  };
}

template <typename Field>
std::function<void(const CliArgs&, OptRequest&)> text(const std::string& flag, Field field) {
  return [flag, field](const CliArgs& args, OptRequest& request) {
    if (auto given = args.last(flag)) field(request.optimize) = *given;
  };
}

template <typename Field>
std::function<void(const CliArgs&, OptRequest&)> on(const std::string& flag, Field field) {
  return [flag, field](const CliArgs& args, OptRequest& request) {
    if (args.has(flag)) field(request.optimize) = true;
  };
}

std::function<void(const CliArgs&, OptRequest&)> request_switch(const std::string& flag, bool OptRequest::*field) {
  return [flag, field](const CliArgs& args, OptRequest& request) {
    if (args.has(flag)) request.*field = true;
  };
}

std::function<void(const CliArgs&, OptRequest&)> request_text(const std::string& flag, std::string OptRequest::*field) {
  return [flag, field](const CliArgs& args, OptRequest& request) {
    if (auto given = args.last(flag)) request.*field = *given;
  };
}

void read_target(const CliArgs& args, OptRequest& request) {
  TargetSpec& target = request.optimize.target.spec;
  target = TargetSpec::parse(args.last("--target").value_or(target.name()),
                             static_cast<int>(args.integer("--threads", target.runtime_threads(), 1, 1024)));
}

void read_calibration(const CliArgs& args, OptRequest& request) {
  if (auto calibration = args.last("--calibration")) request.optimize.target.calibration = parse_calibration(*calibration);
}

void read_measured_search(const CliArgs& args, OptRequest& request) {
  double& seconds = request.optimize.search.measured_s;
  seconds = args.number("--measured-search", seconds);
  if (!(seconds >= 0))
    throw UserError(fmt::format("--measured-search {} must be 0 (off) or a number of seconds", seconds));
}

void read_input_shapes(const CliArgs& args, OptRequest& request) {
  for (const std::string& given : args.all("--input-shape")) {
    auto [name, shape] = parse_input_shape(given);
    request.import.input_shapes[name] = shape;
  }
}

// --jobs: the threads of the stages that run on pet's own threads (rule matching reads space.threads).
void read_jobs(const CliArgs& args, OptRequest& request) {
  int& generate = request.optimize.generate.threads;
  generate = static_cast<int>(args.integer("--jobs", generate, 1, 1024));
  request.optimize.space.threads = generate;
}

std::vector<OptFlag> make_flags() {
  // The fields the flags read into, through their groups.
  auto search_field = [](auto member) { return field(&OptimizeOptions::search, member); };
  auto limit_field = [](auto member) { return field(&OptimizeOptions::search, &SearchOptions::limits, member); };
  auto generate_field = [](auto member) { return field(&OptimizeOptions::generate, member); };
  auto space_field = [](auto member) { return field(&OptimizeOptions::space, member); };
  auto target_field = [](auto member) { return field(&OptimizeOptions::target, member); };
  auto select_field = [](auto member) { return field(&OptimizeOptions::select, member); };
  // The mutant generator's work budget, which OptimizeOptions always sets (unset: no limit).
  auto work = [](auto& options) -> auto& { return options.generate.work.value(); };
  return {
      {"--output", "-o", "FILE", {"optimized model (default: MODEL.opt.onnx next to the input)"}, {},
       [](const CliArgs& args, OptRequest& request) {
         if (auto given = args.last("--output").value_or(args.last("-o").value_or("")); !given.empty())
           request.output = given;
       }},
      {"--report", "", "FILE", {"JSON report (default: the output path with .json instead of .onnx)"}, {},
       request_text("--report", &OptRequest::report)},
      {"--passes", "", "P,Q,...",
       {"run only these passes, in this order, and write the result (checked",
        "against the input on three draws; no search, no report): cleanup,",
        "finalize, or one of their passes: remove-identities, fold-batchnorm,",
        "eliminate-dead-nodes, fold-weights, eliminate-common-subexpressions,",
        "sink-layouts, eliminate-layout-chains, fuse-conv-bias,",
        "fuse-corrections, sink-layouts-below-corrections,", "fuse-activations"},
       {},
       [](const CliArgs& args, OptRequest& request) {
         if (auto passes = args.last("--passes")) request.passes = parse_pass_list(*passes);
       }},
      {"--emit-ir", "", "", {"write textual IR, whatever the output's name (default MODEL.opt.pet)"}, {},
       request_switch("--emit-ir", &OptRequest::emit_ir)},
      {"--mode", "", "MODE",
       {"none: cleanup and finalize passes only;", "taso: TASO-only, Z3-proved rules alone (no mutants);",
        "pet-eq-only: proved rules and fully equivalent mutants;",
        "pet: pet-eq-only's moves, then partially equivalent mutants with",
        "their corrections as well (default);", "pet-neq-only: corrected partial mutants only"},
       [] { return std::string(to_string(defaults().mode)); },
       [](const CliArgs& args, OptRequest& request) {
         if (auto mode = args.last("--mode")) request.optimize.mode = parse_mode(*mode);
       }},
      {"--beam", "", "N", {"programs kept per search round, N >= 1 (default {default})"}, shows(search_field(&SearchOptions::beam)),
       integer("--beam", search_field(&SearchOptions::beam), 1, 1024)},
      {"--taso-search", "", "ALGO", {"taso mode: alpha, TASO's relaxed best-first search, or beam", "(default {default})"},
       [] { return to_string(defaults().search.taso_search); },
       [](const CliArgs& args, OptRequest& request) {
         if (auto search = args.last("--taso-search")) request.optimize.search.taso_search = parse_taso_search(*search);
       }},
      {"--alpha", "", "X", {"alpha search: keep programs costing up to X times the best ({default})"},
       shows(search_field(&SearchOptions::alpha)), number("--alpha", search_field(&SearchOptions::alpha))},
      {"--time-limit", "", "SECONDS",
       {"wall clock for the search (default {default}; mutant generation, which",
        "--mutant-work bounds, comes first and is not counted); it then stops",
        "with the best program found. A backstop: the budgets below end a",
        "search at the same place on every machine"},
       shows(limit_field(&search::SearchLimits::time_limit_s)), number("--time-limit", limit_field(&search::SearchLimits::time_limit_s))},
      {"--max-expansions", "", "N", {"programs expanded over the whole search (default {default})"},
       shows(limit_field(&search::SearchLimits::max_expansions)), integer("--max-expansions", limit_field(&search::SearchLimits::max_expansions), 1, INT64_MAX)},
      {"--max-candidates", "", "N", {"programs scored over the whole search (default {default})"},
       shows(limit_field(&search::SearchLimits::max_candidates)), integer("--max-candidates", limit_field(&search::SearchLimits::max_candidates), 1, INT64_MAX)},
      {"--search-work", "", "N",
       {"nodes of the candidate programs built, summed over the whole", "search: large graphs stop here (default {default})"},
       shows(limit_field(&search::SearchLimits::max_work)), integer("--search-work", limit_field(&search::SearchLimits::max_work), 1, INT64_MAX)},
      {"--mutant-work", "", "N",
       {"elements the mutant generator's Z_p evaluations may read, shared",
        "by the subprograms, a parallel group two shares (default {default})"},
       shows(work), integer("--mutant-work", work, 1, INT64_MAX)},
      {"--scored-per-expansion", "", "N",
       {"mutant moves scored per expanded program, best estimated gain", "first, 0 for all (default {default})"},
       shows(space_field(&search::SearchSpaceOptions::scored_per_expansion)),
       integer("--scored-per-expansion", space_field(&search::SearchSpaceOptions::scored_per_expansion), 0, 1 << 20)},
      {"--stage-size", "", "N",
       {"convs per stage move: one mutant family at every conv of a chain",
        "joined by Relu and biases, its layouts cancelling between them", "(default {default}, PET's; 0 or 1: no stage moves)"},
       shows(space_field(&search::SearchSpaceOptions::stage_sites)), integer("--stage-size", space_field(&search::SearchSpaceOptions::stage_sites), 0, 64)},
      {"--mutation-rounds", "", "N", {"mutants of mutants, per subprogram (default {default})"},
       shows(generate_field(&search::GenerateOptions::mutation_rounds)), integer("--mutation-rounds", generate_field(&search::GenerateOptions::mutation_rounds), 1, 16)},
      {"--top-k", "", "N", {"mutants kept per subprogram and round, by cost (default {default})"},
       shows(generate_field(&search::GenerateOptions::top_k)), integer("--top-k", generate_field(&search::GenerateOptions::top_k), 1, 1024)},
      {"--jobs", "", "N",
       {"threads generating mutants, matching rules and scoring candidates",
        "(default: all cores; one generates and scores while a measured",
        "target is timing); the output does not depend on it"},
       {}, read_jobs},
      {"--target", "", "NAME|FILE",
       {"what to optimize for: ort-cpu (ONNX Runtime, CPU) or openvino-cpu",
        "(OpenVINO, CPU), measured here; h100, h200, measured on a GPU",
        "machine and replayed; a100, v100 or a GPU spec file, estimated",
        "(default {default})"},
       [] { return defaults().target.spec.name(); }, read_target},
      {"--threads", "", "N", {"the runtime's threads the model is optimized for (default: all cores)"}, {}, read_target},
      {"--portable", "", "",
       {"write standard ONNX ops only; without it, ort-cpu models may carry",
        "ONNX Runtime's fused Attention (domain com.microsoft), and openvino-cpu",
        "models pet's fused correction (domain ai.pet, run with pet's extension:",
        "core.add_extension(\"libpet_openvino_extension.so\"))"},
       {}, on("--portable", target_field(&TargetOptions::portable))},
      {"--emit-kernels", "", "DIR",
       {"GPU targets: write each correction of the written model as the CUDA",
        "source of one fused kernel (DIR/<kernel>.cu) and DIR/manifest.json",
        "naming the node and patch it fills, its launch shape, parameters and",
        "boxes; ort-cpu writes corrections as the standard ops it runs fastest",
        "(Slices and Concats, one ScatterND, or Pad and Where), timed per node"},
       {}, request_text("--emit-kernels", &OptRequest::emit_kernels)},
      {"--profile-db", "", "FILE",
       {"measured times (default: ~/.cache/pet/profile-db.json, read and extended;",
        "h100, h200 without --live: bench/profiles/NAME.json, read only)"},
       {}, text("--profile-db", target_field(&TargetOptions::profile_db))},
      {"--export-misses", "", "FILE",
       {"h100, h200: write the timings the profile DB lacks to FILE, their",
        "models to FILE.models/, for pet-gpu measure there (docs/GPU.md)"},
       {}, text("--export-misses", target_field(&TargetOptions::export_misses))},
      {"--live", "", "",
       {"h100, h200: time on this machine's card through pet-gpu worker"},
       {}, on("--live", target_field(&TargetOptions::live))},
      {"--replay", "", "", {"read the profile DB only: nothing is timed, the output is reproducible"}, {},
       on("--replay", target_field(&TargetOptions::replay))},
      {"--remeasure", "", "",
       {"measured targets: time every kernel group, calibration run and program",
        "again, ignoring what the profile DB holds, and save the new times over",
        "it (for a DB recorded under load: the run then warns that it looks stale)"},
       {}, on("--remeasure", target_field(&TargetOptions::remeasure))},
      {"--select", "", "K", {"best programs timed end to end against the input (default {default})"},
       shows(select_field(&SelectOptions::count)), integer("--select", select_field(&SelectOptions::count), 1, 64)},
      {"--select-runs", "", "N", {"timed rounds of that comparison, interleaved (default {default})"},
       shows(select_field(&SelectOptions::runs)), integer("--select-runs", select_field(&SelectOptions::runs), 1, 10000)},
      {"--measured-search", "", "S",
       {"measured targets: the beam follows its programs' end-to-end times in the",
        "runtime (timed beside the cleaned input, kept in the profile DB) when",
        "that is expected to take at most S seconds, else the cost model's",
        "predictions; 0 for predictions always (default {default})"},
       shows(search_field(&SearchOptions::measured_s)), read_measured_search},
      {"--calibration", "", "MODE",
       {"measured targets: in-context, the cost model's per-kernel scales fitted on",
        "the cleaned input run whole under the runtime's profiler (its",
        "neighbours, caches and fusions), or standalone, kernel groups timed",
        "alone as they are (default {default})"},
       [] { return to_string(defaults().target.calibration); }, read_calibration},
      {"--rules", "", "DIR", {"rule library folder (default: the repository's mutant/rules)"}, {},
       text("--rules", search_field(&SearchOptions::rules_dir))},
      {"--input-shape", "", "NAME=DIMS",
       {"static shape for an input with symbolic dims, e.g. input=1x3x224x224", "(repeat for several inputs)"}, {},
       read_input_shapes},
      {"--seed", "", "N", {"seed for every random draw, including the final check (default {default})"},
       shows(field(&OptimizeOptions::seed)), integer("--seed", field(&OptimizeOptions::seed), 0, INT64_MAX)},
      {"--report-times", "", "",
       {"add wall-clock times to the JSON report (it is otherwise byte-identical", "from run to run)"}, {},
       request_switch("--report-times", &OptRequest::report_times)},
      {"--help", "-h", "", {"this text"}, {}, [](const CliArgs&, OptRequest&) {}},
  };
}

// "-o, --output FILE", "--beam N", "--emit-ir".
std::string spelling(const OptFlag& flag) {
  std::string text = flag.alias.empty() ? flag.name : flag.alias + ", " + flag.name;
  return flag.value.empty() ? text : text + " " + flag.value;
}

std::string help_line(const OptFlag& flag, const std::string& line) {
  std::string::size_type at = line.find("{default}");
  if (at == std::string::npos) return line;
  PET_CHECK(flag.default_text, fmt::format("{}'s help states a default it has no default_text for", flag.name));
  return line.substr(0, at) + flag.default_text() + line.substr(at + 9);
}

}  // namespace

const std::vector<OptFlag>& opt_flags() {
  static const std::vector<OptFlag> flags = make_flags();
  return flags;
}

std::string pet_opt_help() {
  std::string help = kUsage;
  for (const OptFlag& flag : opt_flags()) {
    for (size_t i = 0; i < flag.help.size(); ++i) {
      std::string left = i == 0 ? spelling(flag) : "";
      help += fmt::format("  {:<24} {}\n", left, help_line(flag, flag.help[i]));
    }
  }
  return help + kEpilogue;
}

CliArgs parse_opt_args(const std::vector<std::string>& args) {
  std::vector<std::string> value_flags, switches;
  for (const OptFlag& flag : opt_flags()) {
    std::vector<std::string>& kind = flag.value.empty() ? switches : value_flags;
    kind.push_back(flag.name);
    if (!flag.alias.empty()) kind.push_back(flag.alias);
  }
  return CliArgs("pet-opt", args, value_flags, switches);
}

}  // namespace pet
