// The seeded conv originals and their partial mutants, one family's templates at a time.
#include "tests/corrector/correction_cases.h"

#include "core/ops/layout.h"

#include "core/text_ir.h"

#include <map>

#include <fmt/format.h>

namespace pet::corrector::correction_cases {
namespace {

int64_t pick(Rng& rng, int64_t low, int64_t high) {
  return low + static_cast<int64_t>(rng() % static_cast<uint64_t>(high - low + 1));
}

Graph conv_graph(const Shape& x, const Shape& w, const std::vector<int64_t>& pads, const std::vector<int64_t>& dilations,
                 const std::optional<Tensor>& weight) {
  Graph graph;
  ValueId xv = graph.add_input("x", {DType::f32, x});
  ValueId wv = weight ? graph.add_constant("w", *weight) : graph.add_input("w", {DType::f32, w});
  graph.add_output(graph.add_node1("Conv", {{"strides", std::vector<int64_t>{1, 1}}, {"pads", pads},
                                            {"dilations", dilations}, {"group", int64_t{1}}},
                                   {xv, wv}, "y"));
  return graph;
}

}  // namespace

const std::vector<Family>& families() {
  static const std::vector<Family> list = {
      {"stacking", {"batch-to-axis", "conv", "axis-to-batch-back"}},
      {"residue", {"rows-deinterleave-stacked", "conv", "rows-interleave-stacked"}},
      {"tiling", {"axis-to-batch", "conv", "batch-to-axis-back"}}};
  return list;
}

std::optional<Graph> random_original(const std::string& family, Rng& rng, Weights weights) {
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
  Shape weight_shape{m, c, kh, kw};
  std::optional<Tensor> weight;
  if (weights == Weights::Constant) weight = Tensor::random_f32(weight_shape, rng());
  return conv_graph({n, c, h, w}, weight_shape, pads, {dh, dw}, weight);
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

std::vector<Case> generate_cases(Rng& rng, int wanted, int per_original, Weights weights) {
  std::vector<Case> result;
  std::map<std::string, int> count;
  int share = wanted / static_cast<int>(families().size());
  for (int attempt = 0; attempt < 8000 && static_cast<int>(result.size()) < wanted; ++attempt) {
    const Family& family = families()[static_cast<size_t>(attempt) % families().size()];
    std::optional<Graph> original = random_original(family.name, rng, weights);
    if (!original || count[family.name] >= share) continue;
    int taken = 0;
    for (mutant::Mutant& m : mutant::generate_mutants(*original, options_for(family)).mutants)
      if (m.verdict.kind == VerdictKind::Partial && count[family.name] < share &&
          (per_original == 0 || taken < per_original)) {
        count[family.name]++, taken++;
        result.push_back({family.name, *original, std::move(m)});
      }
  }
  return result;
}

std::vector<CorrectedCase> onnx_lowering_cases(uint64_t seed, int per_family) {
  std::vector<CorrectedCase> result;
  Rng rng(seed);
  int wanted = per_family * static_cast<int>(families().size());
  for (Weights weights : {Weights::Input, Weights::Constant})
    for (Case& c : generate_cases(rng, wanted, 1, weights)) {
      std::string name = fmt::format("{:02}_{}_{}_weights", result.size(), c.family,
                                     weights == Weights::Input ? "input" : "constant");
      CorrectedProgram corrected = correct(c.original, c.mutant.program, c.mutant.verdict);
      result.push_back({name, std::move(c.original), std::move(c.mutant.program), c.mutant.family, std::move(corrected)});
    }
  return result;
}

Graph seam_example_original() {
  return parse_graph(R"(graph "g" opset 13 {
    input %x : f32[2,4,16,8]
    input %w : f32[4,4,3,3]
    %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
    output %y
  })");
}

Graph seam_example_mutant() {
  Graph graph;
  Shape x_shape{2, 4, 16, 8};
  ValueId x = graph.add_input("x", {DType::f32, x_shape});
  ValueId w = graph.add_input("w", {DType::f32, {4, 4, 3, 3}});
  ValueId stacked = graph.add_node1("Layout", ops::layout_batch_to_height(x_shape, 2), {x}, "stack");
  ValueId conv = graph.add_node1("Conv", seam_example_original().node(0).attrs, {stacked, w}, "conv");
  graph.add_output(
      graph.add_node("Layout", ops::layout_height_to_batch(graph.value(conv).type.shape, 2), {conv}, "unstack", {"y"})
          .at(0));
  return graph;
}

}  // namespace pet::corrector::correction_cases
