// Pricing a whole model with the cost model: the search asks for graph costs constantly, so with
// the memo warm a ResNet-18 must cost microseconds. A measured target cuts every graph into kernel
// groups first: the CPU runtimes' rule beside pet-gpu's steps, which asks pet-gpu's plan. Compare
// the two in one run, interleaved: --benchmark_enable_random_interleaving=true --benchmark_repetitions=9. Models come from PET_MODELS_DIR (default: the
// build's models/ folder, filled by `ctest -R models.export` or models/export_models.py).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "core/onnx_import.h"
#include "search/passes/cleanup.h"
#include "search/cost/cost_model.h"
#include "search/cost/kernel_groups.h"
#include "search/program.h"

namespace pet {
namespace {

bool load(benchmark::State& state, const std::string& name, Graph& graph) {
  const char* dir = std::getenv("PET_MODELS_DIR");
  std::string path = (std::filesystem::path(dir ? dir : PET_DEFAULT_MODELS_DIR) / (name + "_b1") / "model.onnx").string();
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("missing " + path + "; export the models first").c_str());
    return false;
  }
  graph = import_onnx(path);
  cleanup(graph);
  return true;
}

// The search's case: the same model again, every signature already in the memo.
void BM_GraphCostWarm(benchmark::State& state, const std::string& name) {
  Graph graph;
  if (!load(state, name, graph)) return;
  cost::CostModel model(cost::load_device("h100"));
  double microseconds = model.graph_cost(graph);
  for (auto _ : state) benchmark::DoNotOptimize(model.graph_cost(graph));
  state.counters["nodes"] = static_cast<double>(graph.nodes().size());
  state.counters["model_us_on_h100"] = microseconds;
}

// A fresh model each time: every signature priced by the roofline once.
void BM_GraphCostCold(benchmark::State& state, const std::string& name) {
  Graph graph;
  if (!load(state, name, graph)) return;
  cost::DeviceSpec device = cost::load_device("h100");
  for (auto _ : state) {
    cost::CostModel model(device);
    benchmark::DoNotOptimize(model.graph_cost(graph));
  }
}

// Cutting a model into kernel groups, as a measured target does for every graph it prices.
void BM_KernelGroups(benchmark::State& state, const std::string& name, cost::GroupingRule rule) {
  Graph graph;
  if (!load(state, name, graph)) return;
  size_t groups = 0;
  for (auto _ : state) groups = cost::kernel_groups(graph, rule).groups.size();
  state.counters["nodes"] = static_cast<double>(graph.nodes().size());
  state.counters["groups"] = static_cast<double>(groups);
}

// A measured target replaying an empty DB, every group estimated once and then memoized: the
// search's case on a GPU target (pet-gpu's steps) and on a CPU one (the runtimes' groups).
void BM_MeasuredTargetGraphCostWarm(benchmark::State& state, const std::string& name, bool pet_gpu) {
  Graph graph;
  if (!load(state, name, graph)) return;
  cost::Measurement measurement;
  measurement.target = {pet_gpu ? "h200" : "ort-cpu", true, 1, "", ""};
  measurement.pet_gpu_kernels = pet_gpu;
  cost::CostModel model(cost::load_device("h200"), cost::ProfileDb{}, measurement);
  double microseconds = model.graph_cost(graph);
  for (auto _ : state) benchmark::DoNotOptimize(model.graph_cost(graph));
  state.counters["model_us_estimated"] = microseconds;
}

BENCHMARK_CAPTURE(BM_GraphCostWarm, resnet18, std::string("resnet18"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GraphCostCold, resnet18, std::string("resnet18"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_KernelGroups, resnet18_runtime, std::string("resnet18"), cost::GroupingRule::runtime_epilogues)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_KernelGroups, resnet18_pet_gpu, std::string("resnet18"), cost::GroupingRule::pet_gpu_steps)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_KernelGroups, bert_s128_runtime, std::string("bert_s128"), cost::GroupingRule::runtime_epilogues)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_KernelGroups, bert_s128_pet_gpu, std::string("bert_s128"), cost::GroupingRule::pet_gpu_steps)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_MeasuredTargetGraphCostWarm, resnet18_cpu_groups, std::string("resnet18"), false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_MeasuredTargetGraphCostWarm, resnet18_pet_gpu_steps, std::string("resnet18"), true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_MeasuredTargetGraphCostWarm, bert_s128_cpu_groups, std::string("bert_s128"), false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_MeasuredTargetGraphCostWarm, bert_s128_pet_gpu_steps, std::string("bert_s128"), true)
    ->Unit(benchmark::kMicrosecond);

// What the search pays per candidate on a GPU target: a copy of the program, its finalize passes
// (folding, layout sinking, conv-bias and activation fusion) and the price of the result, every
// group memoized (the beam search scores thousands of programs this way).
void BM_ProgramScore(benchmark::State& state, const std::string& name) {
  Graph graph;
  if (!load(state, name, graph)) return;
  cost::Measurement measurement;
  measurement.target = {"h200", true, 1, "", ""};
  measurement.pet_gpu_kernels = true;
  cost::CostModel model(cost::load_device("h200"), cost::ProfileDb{}, measurement);
  double microseconds = search::program_score(graph, model);
  for (auto _ : state) benchmark::DoNotOptimize(search::program_score(graph, model));
  state.counters["nodes"] = static_cast<double>(graph.nodes().size());
  state.counters["score_us_estimated"] = microseconds;
}

BENCHMARK_CAPTURE(BM_ProgramScore, resnet18_h200, std::string("resnet18"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ProgramScore, inception_v3_299_h200, std::string("inception_v3_299"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ProgramScore, bert_s128_h200, std::string("bert_s128"))->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pet
