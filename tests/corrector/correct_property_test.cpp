// correct() against the executor on hundreds of partial mutants the generator finds for random
// convs (N2H/N2W stacking, dilated rows stacked by residue, spatial tiling with halo): the
// corrected program matches the original, and the uncorrected mutant really differs in every
// incorrect box. Prints its seed; PET_PROPERTY_SEED reuses one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/executor.h"
#include "core/text_ir.h"
#include "corrector/correct.h"
#include "tests/corrector/correction_cases.h"
#include "tests/verifier/stage_pairs.h"

namespace pet::corrector {
namespace {

using correction_cases::Case;
using correction_cases::families;
using correction_cases::Family;
using correction_cases::Rng;
constexpr int kWantedMutants = 300;

bool close(float expected, float actual, double tolerance) {
  return std::abs(static_cast<double>(expected) - actual) <= tolerance * std::max(1.0, std::abs(static_cast<double>(expected)));
}

// Empty when the case passes, else what went wrong.
std::string check_case(const Case& c, uint64_t seed) {
  CorrectedProgram corrected = correct(c.original, c.mutant.program, c.mutant.verdict);
  Verdict after = examine(c.original, corrected.program);
  if (after.kind != VerdictKind::Full) return "examine() of the corrected program: " + after.summary();
  std::vector<Tensor> inputs = random_inputs(c.original, seed);
  Tensor want = execute(c.original, inputs)[0];
  Tensor got = execute(corrected.program, inputs)[0];
  Tensor wrong = execute(c.mutant.program, inputs)[0];
  for (int64_t i = 0; i < want.numel(); ++i)
    if (!close(want.f32()[static_cast<size_t>(i)], got.f32()[static_cast<size_t>(i)], 1e-5))
      return fmt::format("corrected output differs at flat index {}: {} vs {}", i, want.f32()[static_cast<size_t>(i)],
                         got.f32()[static_cast<size_t>(i)]);
  std::vector<int64_t> index(static_cast<size_t>(want.shape().rank()));
  for (const Box& box : c.mutant.verdict.incorrect_boxes[0]) {
    bool differs = false;
    for (int64_t i = 0; i < want.numel() && !differs; ++i) {
      int64_t rest = i;
      for (int d = want.shape().rank() - 1; d >= 0; --d) index[static_cast<size_t>(d)] = rest % want.shape()[d], rest /= want.shape()[d];
      differs = box.contains(index) && !close(want.f32()[static_cast<size_t>(i)], wrong.f32()[static_cast<size_t>(i)], 1e-4);
    }
    if (!differs) return "the uncorrected mutant already matches in box " + box.to_string();
  }
  return "";
}

uint64_t property_seed() {
  const char* given = std::getenv("PET_PROPERTY_SEED");
  return given ? std::strtoull(given, nullptr, 10) : 2026;
}

TEST(CorrectProperty, CorrectedPartialMutantsMatchTheOriginal) {
  uint64_t seed = property_seed();
  std::cout << "correct property test: seed " << seed << " (PET_PROPERTY_SEED=" << seed << " reuses it)\n";
  Rng rng(seed);
  std::vector<Case> cases = correction_cases::generate_cases(rng, kWantedMutants);
  std::map<std::string, int> per_family, per_mutant_family, failures;
  const Case* smallest = nullptr;
  std::string smallest_reason;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    per_family[c.family]++;
    per_mutant_family[c.family + " (" + c.mutant.family + ")"]++;
    std::string reason = check_case(c, seed + i);
    if (reason.empty()) continue;
    failures[c.family]++;
    int64_t size = c.original.value(c.original.inputs()[0]).type.shape.numel();
    if (!smallest || size < smallest->original.value(smallest->original.inputs()[0]).type.shape.numel())
      smallest = &c, smallest_reason = reason;
  }
  for (const auto& [family, count] : per_mutant_family) std::cout << "  " << family << ": " << count << " partial mutants\n";
  EXPECT_GE(static_cast<int>(cases.size()), kWantedMutants);
  for (const Family& family : families()) EXPECT_EQ(per_family[family.name], kWantedMutants / 3) << family.name;
  if (smallest)
    ADD_FAILURE() << failures.size() << " families failed; smallest failing case: " << smallest_reason << "\noriginal:\n"
                  << print_graph(smallest->original) << "mutant (" << smallest->mutant.verdict.summary() << "):\n"
                  << print_graph(smallest->mutant.program);
}

// Multi-op regions: two or three convs run on the stacked batch with one layout at each end (a
// stage). Their seams widen from conv to conv; the boxes examine() reports are corrected exactly.
TEST(CorrectProperty, CorrectedStackedStagesMatchTheOriginal) {
  uint64_t seed = property_seed();
  std::cout << "stacked-stage property test: seed " << seed << " (PET_PROPERTY_SEED=" << seed << " reuses it)\n";
  Rng rng(seed);
  std::map<std::string, int> partial;
  for (int i = 0; i < 60; ++i) {
    testing::StagePair stage = testing::random_stacked_stage(rng);
    SCOPED_TRACE(fmt::format("pair {} ({})\noriginal:\n{}", i, stage.family, print_graph(stage.original)));
    ExamineOptions every_partial;
    every_partial.min_fraction_correct = 0;  // small random images: seams may cover most of them
    Verdict verdict = examine(stage.original, stage.candidate, every_partial);
    ASSERT_NE(verdict.kind, VerdictKind::Rejected) << verdict.summary();
    if (verdict.kind == VerdictKind::Partial) partial[stage.family]++;
    CorrectedProgram corrected = correct(stage.original, stage.candidate, verdict);
    EXPECT_EQ(examine(stage.original, corrected.program).kind, VerdictKind::Full);
    std::vector<Tensor> inputs = random_inputs(stage.original, seed + static_cast<uint64_t>(i));
    Tensor want = execute(stage.original, inputs)[0], got = execute(corrected.program, inputs)[0];
    for (int64_t e = 0; e < want.numel(); ++e)
      ASSERT_TRUE(close(want.f32()[static_cast<size_t>(e)], got.f32()[static_cast<size_t>(e)], 1e-5)) << "flat index " << e;
  }
  for (const auto& [family, count] : partial) std::cout << "  " << family << ": " << count << " partial\n";
  EXPECT_GE(partial.size(), 3u) << "stacked stages of 2 and 3 convs along H and W are partial";
}

}  // namespace
}  // namespace pet::corrector
