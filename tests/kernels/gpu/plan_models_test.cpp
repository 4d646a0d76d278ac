// Every op of the nine evaluation models has a pet-gpu plan: each model, imported and cleaned up
// as the pipeline does (and once more after finalize, as pet writes it), plans without a refusal,
// and the plan passes plan_checks.h. Prints each model's steps by kind and its arena figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/onnx_import.h"
#include "kernels/gpu/plan/plan.h"
#include "search/cost/cost_model.h"
#include "search/cost/kernel_groups.h"
#include "search/passes/cleanup.h"
#include "search/passes/finalize.h"
#include "tests/kernels/gpu/plan_checks.h"

namespace pet::gpu {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> model_names() {
  return {"resnet18",  "resnet50", "inception_v3_299", "inception_v3_330", "csrnet", "csrnet_backend", "bert_s128",
          "bert_s512", "r3d_18"};
}

// "Conv -> cudnn-conv, Relu -> cudnn-conv+elementwise": how each op's nodes were planned.
std::string planned_ops(const GpuPlan& plan) {
  std::map<std::string, std::map<std::string, int>> by_op;
  for (const Step& step : plan.steps)
    for (NodeId n : step.nodes) by_op[plan.nodes[static_cast<size_t>(n)].op][to_string(step.kind)]++;
  for (const Alias& alias : plan.aliases)
    by_op[plan.nodes[static_cast<size_t>(alias.node)].op]["alias " + to_string(alias.kind)]++;
  std::string text;
  for (const auto& [op, kinds] : by_op) {
    std::vector<std::string> parts;
    for (const auto& [kind, count] : kinds) parts.push_back(fmt::format("{} {}", count, kind));
    text += fmt::format("    {}: {}\n", op, fmt::join(parts, ", "));
  }
  return text;
}

std::string step_counts(const GpuPlan& plan) {
  std::map<std::string, int> counts;
  for (const Step& step : plan.steps) counts[to_string(step.kind)]++;
  std::vector<std::string> parts;
  for (const auto& [kind, count] : counts) parts.push_back(fmt::format("{} {}", count, kind));
  return fmt::format("{}", fmt::join(parts, ", "));
}

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

void expect_sound_plan(const std::string& what, const Graph& graph) {
  GpuPlan plan = plan_for_gpu(graph);
  std::vector<std::string> problems = testing::plan_problems(graph, plan);
  EXPECT_TRUE(problems.empty()) << what << ": " << problems.size() << " problems, the first: " << problems.front();
  EXPECT_LT(plan.arena_bytes, plan.no_reuse_bytes) << what << ": the arena reuses no bytes";
  std::cout << fmt::format(
      "  {}: {} nodes -> {} steps ({}), {} aliases; arena {:.2f} MiB (no reuse {:.2f} MiB, {:.1f}x), "
      "workspace {:.2f} MiB\n{}",
      what, graph.nodes().size(), plan.steps.size(), step_counts(plan), plan.aliases.size(), mib(plan.arena_bytes),
      mib(plan.no_reuse_bytes),
      static_cast<double>(plan.no_reuse_bytes) / static_cast<double>(std::max<int64_t>(plan.arena_bytes, 1)),
      mib(plan.workspace_bytes()), planned_ops(plan));
  if (std::getenv("PET_DEBUG")) std::cout << format_plan(plan);
}

class ModelPlan : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!std::getenv("PET_MODELS_DIR"))
      GTEST_SKIP() << "PET_MODELS_DIR is not set; ctest sets it after exporting the models (models.export)";
  }
  fs::path model_file() const { return fs::path(std::getenv("PET_MODELS_DIR")) / (GetParam() + "_b1") / "model.onnx"; }
};

TEST_P(ModelPlan, EveryNodeIsPlanned) {
  ASSERT_TRUE(fs::exists(model_file())) << model_file() << " is missing: run models/export_models.py";
  Graph graph = import_onnx(model_file().string());
  cleanup(graph);
  expect_sound_plan(GetParam() + " after cleanup", graph);
  finalize(graph);
  expect_sound_plan(GetParam() + " after finalize", graph);
}

// Per kernel group of `graph` (a GPU target's: pet-gpu's steps) that is not one step of pet-gpu's
// plan for its stand-alone model, the model a measure stage times in its place: its ops and why.
std::map<std::string, std::string> groups_that_are_not_one_step(const std::string& what, const Graph& graph) {
  cost::KernelGrouping grouping = cost::kernel_groups(graph, cost::GroupingRule::pet_gpu_steps);
  std::map<std::string, std::string> mismatches;
  long fused = 0, in_place = 0;
  for (const cost::KernelGroup& group : grouping.groups) {
    std::vector<cost::KernelPlace> places = cost::gpu_kernel_places(grouping, group);
    fused += std::count(places.begin(), places.end(), cost::KernelPlace::fused);
    GpuPlan plan = plan_for_gpu(cost::kernel_group_model(graph, group));
    // A group run in place (a view, a Concat or Split sharing bytes) is one copy step stand-alone,
    // where its input is the caller's buffer: the graph never runs it, and a GPU target never times it.
    in_place += group.in_place;
    bool one_step = plan.steps.size() == 1 && plan.steps[0].nodes.size() == group.nodes.size();
    if (!one_step)
      mismatches[cost::context_class(graph, group)] =
          fmt::format("{} nodes grouped, planned as {} steps ({})", group.nodes.size(), plan.steps.size(), step_counts(plan));
  }
  GpuPlan whole = plan_for_gpu(graph);
  EXPECT_EQ(grouping.groups.size(), whole.steps.size() + whole.aliases.size()) << what;
  std::cout << fmt::format("  {}: {} kernel groups ({} run in place; pet-gpu plans {} steps and {} aliases), {} "
                           "nodes fused into a step's kernel, {} not one step alone\n",
                           what, grouping.groups.size(), in_place, whole.steps.size(), whole.aliases.size(), fused,
                           mismatches.size());
  EXPECT_EQ(in_place, static_cast<long>(whole.aliases.size())) << what;
  return mismatches;
}

// A GPU target's kernel groups are pet-gpu's steps: each kernel group of the model, cleaned up and
// finalized, is one step of the plan pet-gpu makes for its stand-alone model (the model a measure
// stage times in its place), and the groups are as many as the plan's steps and views.
TEST_P(ModelPlan, EachKernelGroupOfAGpuTargetIsOnePetGpuStep) {
  ASSERT_TRUE(fs::exists(model_file())) << model_file() << " is missing: run models/export_models.py";
  Graph graph = import_onnx(model_file().string());
  cleanup(graph);
  std::map<std::string, std::string> cleaned = groups_that_are_not_one_step(GetParam() + " after cleanup", graph);
  finalize(graph);
  std::map<std::string, std::string> finalized = groups_that_are_not_one_step(GetParam() + " after finalize", graph);
  for (const auto& [ops, why] : cleaned) ADD_FAILURE() << GetParam() << " after cleanup, " << ops << ": " << why;
  for (const auto& [ops, why] : finalized) ADD_FAILURE() << GetParam() << " after finalize, " << ops << ": " << why;
}

INSTANTIATE_TEST_SUITE_P(Batch1, ModelPlan, ::testing::ValuesIn(model_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

// BERT's exporter writes each of its 25 layer normalizations out in nine standard ops (opset 13):
// each is one layer_norm step, as it is after cleanup, and no ReduceMean is left to a reduce step.
class BertPlan : public ModelPlan {};

TEST_P(BertPlan, WrittenOutLayerNormsAreOneStepEach) {
  Graph graph = import_onnx(model_file().string());
  cleanup(graph);
  GpuPlan plan = plan_for_gpu(graph);
  int layer_norms = 0, reduces = 0;
  for (const Step& step : plan.steps) {
    layer_norms += step.kind == StepKind::layer_norm && step.nodes.size() == 9;
    reduces += step.kind == StepKind::reduce;
  }
  EXPECT_EQ(layer_norms, 25) << step_counts(plan);
  EXPECT_EQ(reduces, 0) << step_counts(plan);
}

INSTANTIATE_TEST_SUITE_P(Batch1, BertPlan, ::testing::Values("bert_s128", "bert_s512"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

}  // namespace
}  // namespace pet::gpu
