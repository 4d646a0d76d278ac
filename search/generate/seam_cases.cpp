// The seam-correction cases and their overheads under the cost model.
#include "search/generate/seam_cases.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "corrector/correct.h"
#include "mutant/generator.h"
#include "core/error.h"
#include "search/generate/bias_split.h"
#include "search/generate/correction_overhead.h"

namespace pet::search {

std::vector<SeamCase> resnet18_and_csrnet_seam_cases() {
  std::vector<SeamCase> cases;
  for (int64_t batch : {1, 16}) {
    for (auto [channels, size] : {std::pair<int64_t, int64_t>{64, 56}, {128, 28}, {256, 14}, {512, 7}})
      cases.push_back({fmt::format("resnet18 conv3x3 {}x{}x{} b{}", channels, size, size, batch), batch, channels,
                       channels, size, 1});
    for (auto [in, out] : {std::pair<int64_t, int64_t>{512, 512}, {512, 256}, {256, 128}, {128, 64}})
      cases.push_back({fmt::format("csrnet dilated conv {}->{} 14x14 b{}", in, out, batch), batch, in, out, 14, 2});
  }
  return cases;
}

Graph seam_case_program(const SeamCase& seam) {
  Graph graph;
  graph.name = seam.name;
  ValueId x = graph.add_input("x", {DType::f32, {seam.batch, seam.in_channels, seam.size, seam.size}});
  ValueId w = graph.add_input("w", {DType::f32, {seam.out_channels, seam.in_channels, 3, 3}});
  ValueId b = graph.add_input("b", {DType::f32, {seam.out_channels}});
  int64_t pad = seam.dilation;
  Attributes attrs = {{"strides", std::vector<int64_t>{1, 1}},
                      {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                      {"dilations", std::vector<int64_t>{seam.dilation, seam.dilation}},
                      {"group", int64_t{1}}};
  graph.add_output(graph.add_node1("Conv", attrs, {x, w, b}, "conv"));
  return graph;
}

Graph with_residual_epilogue(const Graph& program) {
  PET_CHECK(program.outputs().size() == 1, "a seam program has one output");
  Graph graph = program;
  ValueId out = graph.outputs()[0];
  ValueId residual = graph.add_input("residual", graph.value(out).type);
  ValueId sum = graph.add_node1("Add", {}, {out, residual}, "residual_add");
  graph.set_outputs({graph.add_node1("Relu", {}, {sum}, "residual_relu")});
  return graph;
}

// As the search does it: the generator mutates the conv without its bias, the bias is added back
// after the mutant, and the correction recomputes boxes with the biased conv.
std::vector<SeamOverhead> seam_overheads(const SeamCase& seam, const cost::CostModel& cost) {
  Graph original = seam_case_program(seam);
  std::optional<BiasSplit> split = split_conv_bias(original);
  PET_CHECK(split.has_value(), "a seam case is one biased conv");
  mutant::GeneratorOptions options;
  options.equivalence = mutant::Equivalence::PartialOnly;
  std::vector<SeamOverhead> found;
  std::vector<Graph> corrected_programs;  // found[i]'s, until the sort
  double original_us = correction_overhead(original, original, {false, true, true}, cost).mutant_us;
  for (const mutant::Mutant& candidate : mutant::generate_mutants(split->unbiased, options).mutants) {
    if (candidate.verdict.kind != VerdictKind::Partial) continue;
    Graph mutant = add_bias_back(original, *split, candidate.program);
    corrector::CorrectedProgram corrected = corrector::correct(original, mutant, candidate.verdict);
    CorrectionOverhead overhead = correction_overhead(mutant, corrected.program, {false, true, true}, cost);
    found.push_back({candidate.family, original_us, overhead.mutant_us, overhead.corrected_us, overhead.ratio(),
                     static_cast<int>(corrected.corrections.size()), overhead.lowerings,
                     overhead.corrected_us_by_lowering});
    corrected_programs.push_back(std::move(corrected.program));
  }
  if (found.empty()) return found;
  std::vector<size_t> order(found.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return found[a].corrected_us < found[b].corrected_us; });
  std::vector<SeamOverhead> sorted;
  for (size_t i : order) sorted.push_back(found[i]);
  const std::vector<bool> weights_then_residual = {false, true, true, false};
  Graph original_in_context = with_residual_epilogue(original);
  sorted.front().original_in_context_us =
      correction_overhead(original_in_context, original_in_context, weights_then_residual, cost).mutant_us;
  Graph corrected_in_context = with_residual_epilogue(corrected_programs[order.front()]);
  sorted.front().corrected_in_context_us =
      correction_overhead(corrected_in_context, corrected_in_context, weights_then_residual, cost).mutant_us;
  return sorted;
}

}  // namespace pet::search
