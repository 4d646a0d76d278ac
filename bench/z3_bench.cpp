// Z3 prover benchmarks: proving each example rule, instantiating axioms, and checking every axiom numerically.
#include <benchmark/benchmark.h>

#include "core/text_ir.h"
#include "verifier/axioms/instantiate.h"
#include "verifier/axioms/numeric_check.h"
#include "verifier/z3/example_rules.h"
#include "verifier/z3/prover.h"

namespace pet {
namespace {

void BM_ProveExampleRule(benchmark::State& state, const std::string& name) {
  const ExampleRule& rule = example_rule(name);
  Graph lhs = parse_graph(rule.lhs), rhs = parse_graph(rule.rhs);
  ProveOptions options;
  options.numeric_refutation = false;  // time Z3 and instantiation, not the executor
  for (auto _ : state) {
    ProofResult result = prove(lhs, rhs, options);
    if (rule.holds && result.status != ProofStatus::Proved) state.SkipWithError(result.reason.c_str());
    state.counters["instances"] = static_cast<double>(result.axioms_available.size());
  }
}

void BM_InstantiateAxioms(benchmark::State& state) {
  const ExampleRule& rule = example_rule("merge-1x1-and-3x3-convs");
  Graph lhs = parse_graph(rule.lhs), rhs = parse_graph(rule.rhs);
  for (auto _ : state)
    benchmark::DoNotOptimize(axioms::instantiate_axioms({&lhs, &rhs}, axioms::all_axioms(), {}).instances.size());
}

void BM_CheckAllAxiomsNumerically(benchmark::State& state) {
  for (auto _ : state)
    for (const axioms::AxiomSchema& schema : axioms::all_axioms())
      for (const axioms::AxiomCheck& check : axioms::check_axiom(schema, 1))
        if (!check.passed) state.SkipWithError(check.instance.c_str());
}

}  // namespace

BENCHMARK_CAPTURE(BM_ProveExampleRule, merge_convs, std::string("merge-convs-sharing-input"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProveExampleRule, merge_1x1_3x3, std::string("merge-1x1-and-3x3-convs"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProveExampleRule, matmul_assoc, std::string("matmul-reassociate"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProveExampleRule, relu_transpose, std::string("relu-through-transpose"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProveExampleRule, factor_scalar, std::string("factor-scalar-out-of-add"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProveExampleRule, split_concat, std::string("split-of-concat"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProveExampleRule, layout_roundtrip, std::string("layout-batch-to-height-and-back"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProveExampleRule, taso_unsound, std::string("taso-unsound-drop-mul-after-conv"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InstantiateAxioms)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CheckAllAxiomsNumerically)->Unit(benchmark::kMillisecond);

}  // namespace pet
