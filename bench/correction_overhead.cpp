// Prints the correction overhead of every partial mutant of the seam cases (ResNet-18 and the
// CSRNet back end, batch 1 and 16) under a target's cost model, estimated for a GPU spec or
// measured in ONNX Runtime or OpenVINO: the corrector's target is under 1 %.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "search/pipeline.h"
#include "tools/cli_args.h"
#include "search/generate/seam_cases.h"
#include "tools/commands.h"

namespace {

constexpr const char* kUsage =
    "usage: pet_correction_overhead [TARGET] [--threads N] [--profile-db FILE]\n"
    "  TARGET: h100 (default), h200 (their bench/profiles DB replayed, estimated where it lacks),\n"
    "          a100, v100 or a device spec JSON file (estimated), or ort-cpu or\n"
    "          openvino-cpu (each kernel group timed in that runtime with N threads, default 1, on\n"
    "          first need and kept in the profile DB, by default pet-opt's per-user one)\n";

int print_overheads(const pet::OptimizeOptions& options) {
  pet::TargetSetup target;
  pet::open_target(options.target_options(), target);
  const pet::cost::CostModel& cost = *target.cost;
  std::string device = options.target.spec.name();
  if (cost.measurement()) fmt::print("{}\n", cost.measurement()->target.describe());
  double worst_best = 0, worst_any = 0;
  double best_headroom = -1;  // the most any uncorrected partial mutant saves: a correction must cost less
  fmt::print("{:<38} {:>8} {:>12} {:>12} {:>14} {:>10} {:>10}  {:<16} {}\n", "case (" + device + ")", "partial", "original us",
             "mutant us", "corrected us", "overhead", "worst", "lowering", "family of the cheapest");
  for (const pet::search::SeamCase& seam : pet::search::resnet18_and_csrnet_seam_cases()) {
    auto found = pet::search::seam_overheads(seam, cost);
    if (found.empty()) {
      fmt::print("{:<38} {:>8}\n", seam.name, 0);
      continue;
    }
    double worst = 0;
    for (const auto& entry : found) worst = std::max(worst, entry.ratio);
    const auto& best = found.front();
    worst_best = std::max(worst_best, best.ratio);
    worst_any = std::max(worst_any, worst);
    fmt::print("{:<38} {:>8} {:>12.2f} {:>12.2f} {:>14.2f} {:>9.3f}% {:>9.3f}%  {:<16} {}\n", seam.name, found.size(),
               best.original_us, best.mutant_us, best.corrected_us, 100 * best.ratio, 100 * worst,
               best.lowerings.empty() ? "-" : best.lowerings,
               best.family);
    if (!best.corrected_us_by_lowering.empty()) fmt::print("{:<38} corrected us by lowering: {}\n", "", best.corrected_us_by_lowering);
    fmt::print("{:<38} in context (+ residual Add + Relu): original {:.2f} us, corrected {:.2f} us ({:+.1f} %)\n", "",
               best.original_in_context_us, best.corrected_in_context_us,
               100 * (best.corrected_in_context_us / best.original_in_context_us - 1));
    const auto& fastest = *std::min_element(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return a.mutant_us < b.mutant_us;
    });
    double headroom = 1 - fastest.mutant_us / fastest.original_us;
    best_headroom = std::max(best_headroom, headroom);
    fmt::print("{:<38} fastest mutant before correction: {:.2f} us ({:+.1f} % against the original), {}\n", "",
               fastest.mutant_us, -100 * headroom, fastest.family);
  }
  fmt::print("largest overhead of the mutant the search takes first: {:.3f}%; of any partial mutant: {:.3f}%\n",
             100 * worst_best, 100 * worst_any);
  if (best_headroom > -1)
    fmt::print("the fastest partial mutant before its correction, against its original conv, at best: {:+.1f} % "
               "(the correction only adds to it)\n",
               -100 * best_headroom);
  if (target.runtime) {
    pet::cost::CostSources sources = cost.sources();
    fmt::print("kernel groups: {} measured ({:.1f} s), {} replayed; profile DB {}\n", sources.measured,
               sources.measuring_seconds, sources.replayed, target.profile_db);
    target.save_measurements();
  }
  return 0;
}

// TARGET, --threads and --profile-db as OptimizeOptions; a UserError for anything else.
pet::OptimizeOptions parse_arguments(const std::vector<std::string>& arguments) {
  pet::CliArgs args("pet_correction_overhead", arguments, {"--threads", "--profile-db"}, {});
  if (args.positionals().size() > 1)
    throw pet::UserError(fmt::format("takes at most one target, got {}\n{}", args.positionals().size(), kUsage));
  pet::OptimizeOptions options;
  options.target.spec = pet::TargetSpec::parse(args.positionals().empty() ? "h100" : args.positionals()[0],
                                               static_cast<int>(args.integer("--threads", 1, 1, 1024)));
  options.target.profile_db = args.last("--profile-db").value_or("");
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  return pet::guarded_main("pet_correction_overhead", kUsage, argc, argv,
                           [](const std::vector<std::string>& arguments) { return print_overheads(parse_arguments(arguments)); });
}
