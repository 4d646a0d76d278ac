// Every kernel pet-gpu generates for the nine evaluation models compiles to sm_90 CUBIN: each model,
// imported and cleaned up as the pipeline does (and once more after finalize, as pet writes it), is
// planned, every own-kernel step generated, and each distinct source (by its content-hashed name,
// across all models) compiled once by NVRTC. Prints the kernels per model and the NVRTC time.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "core/onnx_import.h"
#include "kernels/gpu/codegen/generate.h"
#include "kernels/gpu/plan/plan.h"
#include "kernels/nvrtc_compile.h"
#include "search/passes/cleanup.h"
#include "search/passes/finalize.h"

namespace pet::gpu::codegen {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> model_names() {
  return {"resnet18",  "resnet50", "inception_v3_299", "inception_v3_330", "csrnet", "csrnet_backend", "bert_s128",
          "bert_s512", "r3d_18"};
}

// Every distinct kernel compiled so far, by name (the name hashes the source, so equal names mean
// equal sources), with what NVRTC said.
struct CompiledKernel {
  std::string source;
  bool ok = false;
  std::string error;
};
std::map<std::string, CompiledKernel>& compiled_kernels() {
  static std::map<std::string, CompiledKernel> kernels;
  return kernels;
}
// What this process compiled (ctest runs each model in its own process; a direct run, all nine).
struct RunTotals {
  int models = 0;
  double nvrtc_ms = 0;
};
RunTotals& run_totals() {
  static RunTotals totals;
  return totals;
}

struct ModelKernels {
  int steps = 0;                        // own-kernel steps, in both plans
  std::set<std::string> distinct;       // their kernels' names
  std::map<std::string, int> families;  // distinct kernels per family
  int compiled_now = 0;                 // distinct kernels no earlier model had
  double nvrtc_ms = 0;
};

void add_kernels(const Graph& graph, ModelKernels& model) {
  GpuPlan plan = plan_for_gpu(graph);
  for (PlannedKernel& planned : generate_kernels(graph, plan)) {
    ++model.steps;
    if (!model.distinct.insert(planned.kernel.name).second) continue;
    model.families[to_string(plan.steps[static_cast<size_t>(planned.step)].kind)]++;
    auto [entry, fresh] = compiled_kernels().try_emplace(planned.kernel.name);
    if (!fresh) {
      EXPECT_EQ(entry->second.source, planned.kernel.source) << "two sources named " << planned.kernel.name;
      continue;
    }
    CubinCompilation cubin = compile_to_cubin(planned.kernel.source, planned.kernel.name + ".cu");
    entry->second = {planned.kernel.source, cubin.ok(), cubin.error};
    ++model.compiled_now;
    model.nvrtc_ms += cubin.compile_ms;
    EXPECT_TRUE(cubin.ok()) << planned.kernel.name << ": " << cubin.error << "\n" << planned.kernel.source;
  }
}

std::string family_counts(const ModelKernels& model) {
  std::vector<std::string> parts;
  for (const auto& [family, count] : model.families) parts.push_back(fmt::format("{} {}", count, family));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

class ModelKernelsCompile : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!std::getenv("PET_MODELS_DIR"))
      GTEST_SKIP() << "PET_MODELS_DIR is not set; ctest sets it after exporting the models (models.export)";
  }
  static void TearDownTestSuite() {
    std::cout << fmt::format(
        "  this run: {} models, {} distinct kernels compiled to sm_90 CUBIN in {:.0f} ms of NVRTC time\n",
        run_totals().models, compiled_kernels().size(), run_totals().nvrtc_ms);
  }
  fs::path model_file() const { return fs::path(std::getenv("PET_MODELS_DIR")) / (GetParam() + "_b1") / "model.onnx"; }
};

TEST_P(ModelKernelsCompile, EveryGeneratedKernelCompilesToCubin) {
  ASSERT_TRUE(fs::exists(model_file())) << model_file() << " is missing: run models/export_models.py";
  Graph graph = import_onnx(model_file().string());
  ModelKernels model;
  cleanup(graph);
  add_kernels(graph, model);
  finalize(graph);
  add_kernels(graph, model);
  run_totals().models++;
  run_totals().nvrtc_ms += model.nvrtc_ms;
  std::cout << fmt::format(
      "  {}: {} own-kernel steps (after cleanup and after finalize), {} distinct kernels ({}); {} compiled here "
      "in {:.0f} ms of NVRTC time\n",
      GetParam(), model.steps, model.distinct.size(), family_counts(model), model.compiled_now, model.nvrtc_ms);
  if (std::getenv("PET_DEBUG"))
    for (const std::string& name : model.distinct) std::cout << compiled_kernels()[name].source << "\n";
}

INSTANTIATE_TEST_SUITE_P(Batch1, ModelKernelsCompile, ::testing::ValuesIn(model_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

}  // namespace
}  // namespace pet::gpu::codegen
