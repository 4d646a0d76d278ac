// Prints the correction overhead of every partial mutant of the seam cases (ResNet-18 and the
// CSRNet back end, batch 1 and 16) under the cost model: the corrector's target is under 1 %.
#include <algorithm>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "search/seam_cases.h"
#include "tools/commands.h"

namespace {

constexpr const char* kUsage =
    "usage: pet_correction_overhead [DEVICE]\n"
    "  DEVICE: h100 (default), a100, v100 or the path of a device spec JSON file\n";

int print_overheads(const std::string& device) {
  pet::cost::CostModel cost(pet::cost::load_device(device));
  double worst_best = 0, worst_any = 0;
  fmt::print("{:<38} {:>8} {:>12} {:>12} {:>14} {:>10} {:>10}  {}\n", "case (" + device + ")", "partial", "original us", "mutant us",
             "corrected us", "overhead", "worst", "family of the cheapest");
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
    fmt::print("{:<38} {:>8} {:>12.2f} {:>12.2f} {:>14.2f} {:>9.3f}% {:>9.3f}%  {}\n", seam.name, found.size(), best.original_us, best.mutant_us,
               best.corrected_us, 100 * best.ratio, 100 * worst, best.family);
  }
  fmt::print("largest overhead of the mutant the search takes first: {:.3f}%; of any partial mutant: {:.3f}%\n",
             100 * worst_best, 100 * worst_any);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string argument = argc > 1 ? argv[1] : "h100";
  if (argument == "--help" || argument == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (argc > 2) {
    std::cerr << "pet_correction_overhead: takes at most one argument, got " << argc - 1 << "\n" << kUsage;
    return 2;
  }
  return pet::run_guarded("pet_correction_overhead", std::cerr, [&] { return print_overheads(argument); });
}
