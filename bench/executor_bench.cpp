// Speed of the foundation on real models: import, structural hash, graph copies and the CPU executor.
// Models come from PET_MODELS_DIR (default: the build's models/ folder, filled by
// `ctest -R models.export` or models/export_models.py).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "core/executor.h"
#include "core/onnx_import.h"
#include "core/structural_hash.h"
#include "search/passes/cleanup.h"

namespace pet {
namespace {

std::string model_path(const std::string& name) {
  const char* dir = std::getenv("PET_MODELS_DIR");
  return (std::filesystem::path(dir ? dir : PET_DEFAULT_MODELS_DIR) / (name + "_b1") / "model.onnx").string();
}

bool load(benchmark::State& state, const std::string& name, Graph& graph) {
  std::string path = model_path(name);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("missing " + path + "; export the models first").c_str());
    return false;
  }
  graph = import_onnx(path);
  return true;
}

void BM_Execute(benchmark::State& state, const std::string& name) {
  Graph graph;
  if (!load(state, name, graph)) return;
  std::vector<Tensor> inputs = random_inputs(graph, 1);
  for (auto _ : state) benchmark::DoNotOptimize(execute(graph, inputs));
}

void BM_Import(benchmark::State& state, const std::string& name) {
  std::string path = model_path(name);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("missing " + path).c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(import_onnx(path));
}

void BM_StructuralHash(benchmark::State& state, const std::string& name) {
  Graph graph;
  if (!load(state, name, graph)) return;
  for (auto _ : state) benchmark::DoNotOptimize(structural_hash(graph));
}

// A copy and its destruction: what the search pays for every candidate program it builds.
void BM_GraphCopy(benchmark::State& state, const std::string& name) {
  Graph graph;
  if (!load(state, name, graph)) return;
  for (auto _ : state) {
    Graph copy = graph;
    benchmark::DoNotOptimize(copy.nodes().data());
  }
}

void BM_Cleanup(benchmark::State& state, const std::string& name) {
  Graph graph;
  if (!load(state, name, graph)) return;
  for (auto _ : state) {
    Graph copy = graph;
    benchmark::DoNotOptimize(cleanup(copy));
  }
}

BENCHMARK_CAPTURE(BM_Execute, resnet18_b1, std::string("resnet18"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Execute, resnet50_b1, std::string("resnet50"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Execute, inception_v3_299_b1, std::string("inception_v3_299"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Execute, csrnet_backend_b1, std::string("csrnet_backend"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Execute, bert_s128_b1, std::string("bert_s128"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Execute, r3d_18_b1, std::string("r3d_18"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Import, resnet18_b1, std::string("resnet18"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Import, bert_s128_b1, std::string("bert_s128"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StructuralHash, resnet18_b1, std::string("resnet18"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GraphCopy, inception_v3_299_b1, std::string("inception_v3_299"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GraphCopy, bert_s128_b1, std::string("bert_s128"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Cleanup, resnet50_b1, std::string("resnet50"))->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pet
