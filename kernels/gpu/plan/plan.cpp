// plan_for_gpu reads as the plan's stages: refuse what the GPU cannot run, group nodes into steps,
// give values storage, estimate each step's workspace, then place the arena from lifetimes.
#include "kernels/gpu/plan/plan.h"

#include <algorithm>

#include "kernels/gpu/plan/arena.h"
#include "kernels/gpu/plan/grouping.h"
#include "kernels/gpu/plan/op_support.h"
#include "kernels/gpu/plan/storage.h"

namespace pet::gpu {
namespace {

// Every node checked in node order, so the first node pet-gpu cannot run is the one named.
std::vector<NodeSupport> support_for_nodes(const Graph& graph) {
  std::vector<NodeSupport> support;
  for (const Node& node : graph.nodes()) support.push_back(support_for(graph, node));
  return support;
}

std::vector<PlannedNode> planned_nodes(const Graph& graph) {
  std::vector<PlannedNode> nodes;
  for (const Node& node : graph.nodes()) nodes.push_back({node.name, node.op()});
  return nodes;
}

int64_t product(const std::vector<int64_t>& dims, size_t from) {
  int64_t result = 1;
  for (size_t i = from; i < dims.size(); ++i) result *= dims[i];
  return result;
}

// The im2col matrix an explicit-GEMM algorithm builds (none for a 1x1, stride-1, unpadded Conv).
int64_t conv_workspace(const Graph& graph, const Node& conv, const PlanOptions& options) {
  const auto& input = graph.value(conv.inputs[0]).type.shape.dims();
  const auto& filter = graph.value(conv.inputs[1]).type.shape.dims();
  const auto& output = graph.value(conv.outputs[0]).type.shape.dims();
  auto is_one = [](int64_t v) { return v == 1; };
  const auto& strides = conv.attrs.get_ints("strides");
  const auto& pads = conv.attrs.get_ints("pads");
  bool pointwise = std::all_of(filter.begin() + 2, filter.end(), is_one) &&
                   std::all_of(strides.begin(), strides.end(), is_one) &&
                   std::all_of(pads.begin(), pads.end(), [](int64_t v) { return v == 0; });
  if (pointwise) return 0;
  int64_t bytes = input[0] * input[1] * product(filter, 2) * product(output, 2) * int64_t{4};
  return std::min(bytes, options.conv_workspace_limit_bytes);
}

int64_t estimate_workspace(const Graph& graph, const Step& step, const PlanOptions& options) {
  if (step.kind == StepKind::cudnn_conv) return conv_workspace(graph, graph.node(step.nodes.front()), options);
  if (step.kind == StepKind::cublaslt_gemm) return options.gemm_workspace_bytes;
  return 0;
}

}  // namespace

int64_t GpuPlan::workspace_bytes() const {
  int64_t bytes = 0;
  for (const Step& step : steps) bytes = std::max(bytes, step.workspace_bytes);
  return bytes;
}

GpuPlan plan_for_gpu(const Graph& graph, const PlanOptions& options) {
  std::vector<NodeSupport> support = support_for_nodes(graph);
  Grouping grouping = group_nodes(graph, support);
  GpuPlan plan;
  plan.alignment = options.alignment;
  plan.values = planned_values(graph);
  plan.nodes = planned_nodes(graph);
  assign_storage(graph, grouping, plan.values);
  plan.steps = std::move(grouping.steps);
  plan.aliases = std::move(grouping.aliases);
  for (Step& step : plan.steps) step.workspace_bytes = estimate_workspace(graph, step, options);
  plan_arena(plan);
  return plan;
}

}  // namespace pet::gpu
