// Pricing a whole model with the cost model: the search asks for graph costs constantly, so with
// the memo warm a ResNet-18 must cost microseconds. Models come from PET_MODELS_DIR (default: the
// build's models/ folder, filled by `ctest -R models.export` or models/export_models.py).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "core/onnx_import.h"
#include "search/passes/cleanup.h"
#include "search/cost/cost_model.h"

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

BENCHMARK_CAPTURE(BM_GraphCostWarm, resnet18, std::string("resnet18"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GraphCostCold, resnet18, std::string("resnet18"))->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pet
