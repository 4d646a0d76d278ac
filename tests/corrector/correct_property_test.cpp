// correct() against the executor on hundreds of partial mutants the generator finds for random
// convs (N2H/N2W stacking, dilated rows stacked by residue, spatial tiling with halo): the
// corrected program matches the original, and the uncorrected mutant really differs in every
// incorrect box. Prints its seed; PET_PROPERTY_SEED reuses one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "core/executor.h"
#include "core/text_ir.h"
#include "corrector/correct.h"
#include "mutant/generator.h"

namespace pet::corrector {
namespace {

using Rng = std::mt19937_64;
constexpr int kWantedMutants = 300;

int64_t pick(Rng& rng, int64_t low, int64_t high) { return low + static_cast<int64_t>(rng() % static_cast<uint64_t>(high - low + 1)); }

struct Family {
  std::string name;
  std::vector<std::string> templates;
};

const std::vector<Family>& families() {
  static const std::vector<Family> list = {
      {"stacking", {"batch-to-axis", "conv", "axis-to-batch-back"}},
      {"residue", {"rows-deinterleave-stacked", "conv", "rows-interleave-stacked"}},
      {"tiling", {"axis-to-batch", "conv", "batch-to-axis-back"}}};
  return list;
}

Graph conv_graph(const Shape& x, const Shape& w, const std::vector<int64_t>& pads, const std::vector<int64_t>& dilations) {
  Graph graph;
  ValueId xv = graph.add_input("x", {DType::f32, x}), wv = graph.add_input("w", {DType::f32, w});
  graph.add_output(graph.add_node1("Conv", {{"strides", std::vector<int64_t>{1, 1}}, {"pads", pads},
                                            {"dilations", dilations}, {"group", int64_t{1}}},
                                   {xv, wv}, "y"));
  return graph;
}

// A random conv the family's layouts apply to; nullopt when the kernel does not fit.
std::optional<Graph> random_original(const std::string& family, Rng& rng) {
  int64_t n = pick(rng, 2, 3), c = pick(rng, 1, 2), m = pick(rng, 1, 2);
  int64_t kh = pick(rng, 1, 5), kw = pick(rng, 1, 5), dh = pick(rng, 1, 2), dw = pick(rng, 1, 2);
  int64_t h = pick(rng, 3, 8), w = pick(rng, 3, 8);
  std::vector<int64_t> pads = {pick(rng, 0, kh - 1), pick(rng, 0, kw - 1), pick(rng, 0, kh - 1), pick(rng, 0, kw - 1)};
  if (family == "residue") {  // dilated rows, rows a multiple of the dilation
    dh = 2, h = 2 * pick(rng, 2, 4), kh = 2 * pick(rng, 0, 1) + 1;
    pads[0] = pads[2] = kh - 1;
  }
  if (family == "tiling") {  // SAME convs: the tiles' halo is what goes wrong
    h = 2 * pick(rng, 2, 5), kh = 2 * pick(rng, 1, 2) + 1, dh = 1;
    pads[0] = pads[2] = (kh - 1) / 2;
  }
  if (dh * (kh - 1) + 1 > h + pads[0] + pads[2] || dw * (kw - 1) + 1 > w + pads[1] + pads[3]) return std::nullopt;
  return conv_graph({n, c, h, w}, {m, c, kh, kw}, pads, {dh, dw});
}

mutant::GeneratorOptions options_for(const Family& family) {
  mutant::GeneratorOptions options;
  options.templates.clear();
  for (const mutant::MutantTemplate& tmpl : mutant::default_templates())
    for (const std::string& name : family.templates)
      if (tmpl.name == name) options.templates.push_back(tmpl);
  options.equivalence = mutant::Equivalence::PartialOnly;
  options.examine.min_fraction_correct = 0.3;  // on shapes this small, seams are a large fraction
  return options;
}

struct Case {
  std::string family;
  Graph original;
  mutant::Mutant mutant;
};

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

// Round-robin over the families until each has its share of partial mutants.
std::vector<Case> generate_cases(Rng& rng) {
  std::vector<Case> cases;
  std::map<std::string, int> count;
  int share = kWantedMutants / static_cast<int>(families().size());
  for (int attempt = 0; attempt < 8000 && static_cast<int>(cases.size()) < kWantedMutants; ++attempt) {
    const Family& family = families()[static_cast<size_t>(attempt) % families().size()];
    std::optional<Graph> original = random_original(family.name, rng);
    if (!original || count[family.name] >= share) continue;
    for (mutant::Mutant& m : mutant::generate_mutants(*original, options_for(family)).mutants)
      if (m.verdict.kind == VerdictKind::Partial && count[family.name] < share) {
        count[family.name]++;
        cases.push_back({family.name, *original, std::move(m)});
      }
  }
  return cases;
}

TEST(CorrectProperty, CorrectedPartialMutantsMatchTheOriginal) {
  uint64_t seed = property_seed();
  std::cout << "correct property test: seed " << seed << " (PET_PROPERTY_SEED=" << seed << " reuses it)\n";
  Rng rng(seed);
  std::vector<Case> cases = generate_cases(rng);
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

}  // namespace
}  // namespace pet::corrector
