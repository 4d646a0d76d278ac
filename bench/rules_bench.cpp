// Rule generation benchmarks: enumeration with fingerprints, and the whole generator per class.
#include <benchmark/benchmark.h>

#include "mutant/rules/enumerate.h"
#include "mutant/rules/rule_generator.h"

namespace pet::rules {
namespace {

void BM_EnumerateThreeOps(benchmark::State& state) {
  const ShapeClass& shape_class = shape_classes().at(static_cast<size_t>(state.range(0)));
  size_t programs = 0;
  for (auto _ : state) programs = enumerate_programs(shape_class, {3, 128, 1}).size();
  state.SetLabel(shape_class.name);
  state.counters["programs"] = static_cast<double>(programs);
}
BENCHMARK(BM_EnumerateThreeOps)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

// The committed library's settings (every class, up to 3 ops, 2 proving threads).
void BM_GenerateLibrary(benchmark::State& state) {
  RuleGeneratorOptions options;
  options.max_ops = static_cast<int>(state.range(0));
  RuleGeneration generation;
  for (auto _ : state) generation = generate_rules(options);
  state.counters["proved"] = static_cast<double>(generation.proved.size());
  state.counters["unproved"] = static_cast<double>(generation.unproved.size());
}
BENCHMARK(BM_GenerateLibrary)->Arg(2)->Arg(3)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace pet::rules
