// generate_kernel reads as a table: each generated step kind and the family that writes its
// kernel; plus the pieces every family shares (parameters, refusals).
#include "kernels/gpu/codegen/generate.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"

namespace pet::gpu::codegen {
namespace {

using Family = GeneratedKernel (*)(const StepContext&);

struct FamilyEntry {
  StepKind kind;
  Family generate;
};

// In StepKind order; the refusal lists the kinds from here.
constexpr FamilyEntry kFamilies[] = {
    {StepKind::elementwise, generate_elementwise},
    {StepKind::transpose, generate_strided_copy},
    {StepKind::layout, generate_strided_copy},
    {StepKind::pad, generate_pad},
    {StepKind::slice, generate_strided_copy},
    {StepKind::concat, generate_concat},
    {StepKind::split, generate_split},
    {StepKind::gather, generate_gather},
    {StepKind::expand, generate_strided_copy},
    {StepKind::copy, generate_strided_copy},
    {StepKind::softmax, generate_softmax},
    {StepKind::layer_norm, generate_layer_norm},
    {StepKind::pool, generate_pool},
    {StepKind::reduce, generate_reduce},
    {StepKind::correction, generate_correction},
};

constexpr std::string_view kRunOnCpu = "run this model on a CPU target (--target ort-cpu)";

const FamilyEntry* family_of(StepKind kind) {
  for (const FamilyEntry& entry : kFamilies)
    if (entry.kind == kind) return &entry;
  return nullptr;
}

// "elementwise, transpose, ... and reduce".
std::string generated_kinds() {
  std::vector<std::string> kinds;
  for (const FamilyEntry& entry : kFamilies) kinds.push_back(to_string(entry.kind));
  std::string last = kinds.back();
  kinds.pop_back();
  return fmt::format("{} and {}", fmt::join(kinds, ", "), last);
}

// Who runs the steps pet-gpu does not generate.
std::string runner_of(StepKind kind) {
  switch (kind) {
    case StepKind::cudnn_conv:
      return "cuDNN";
    case StepKind::cublaslt_gemm:
      return "cuBLASLt";
    default:
      break;
  }
  PET_CHECK(false, "a generated step kind has no other runner");
  return "";
}

}  // namespace

size_t StepContext::input_position(ValueId id) const {
  auto at = std::find(step.inputs.begin(), step.inputs.end(), id);
  PET_CHECK(at != step.inputs.end(), fmt::format("value '{}' is no input of its step", graph.value(id).name));
  return static_cast<size_t>(at - step.inputs.begin());
}

void refuse_node(const Node& node, const std::string& why, const std::string& what_runs) {
  throw UserError(
      fmt::format("pet-gpu cannot generate a kernel for node '{}' (op {}): {}; the generated kernels "
                  "take {}; {}",
                  node.name, node.op(), why, what_runs, kRunOnCpu));
}

Parameters step_parameters(const StepContext& context) {
  Parameters parameters;
  for (size_t k = 0; k < context.step.inputs.size(); ++k) {
    ValueId id = context.step.inputs[k];
    parameters.declarations.push_back(
        pointer_parameter(context.type(id).dtype, fmt::format("in{}", k), ArgumentAccess::read));
    parameters.arguments.push_back({id, ArgumentAccess::read});
  }
  for (size_t k = 0; k < context.step.outputs.size(); ++k) {
    ValueId id = context.step.outputs[k];
    parameters.declarations.push_back(
        pointer_parameter(context.type(id).dtype, fmt::format("out{}", k), ArgumentAccess::write));
    parameters.arguments.push_back({id, ArgumentAccess::write});
  }
  return parameters;
}

int64_t largest_value(const StepContext& context) {
  int64_t largest = 0;
  for (const auto* list : {&context.step.inputs, &context.step.outputs})
    for (ValueId id : *list) largest = std::max(largest, context.type(id).shape.numel());
  return largest;
}

bool generates_kernel(StepKind kind) { return family_of(kind) != nullptr; }

GeneratedKernel generate_kernel(const Graph& graph, const GpuPlan& plan, int step) {
  PET_CHECK(plan.nodes.size() == graph.nodes().size(), "the plan was made from another graph");
  PET_CHECK(step >= 0 && static_cast<size_t>(step) < plan.steps.size(), "no such step in the plan");
  const Step& planned = plan.steps[static_cast<size_t>(step)];
  const Node& node = graph.node(planned.nodes.back());
  const FamilyEntry* family = family_of(planned.kind);
  if (family == nullptr)
    throw UserError(
        fmt::format("pet-gpu cannot generate a kernel for step {} (node '{}', op {}): it is a {} step, "
                    "which {} runs; pet-gpu generates the kernels of {} steps only",
                    step, node.name, node.op(), to_string(planned.kind), runner_of(planned.kind), generated_kinds()));
  return family->generate(StepContext{graph, planned});
}

std::vector<PlannedKernel> generate_kernels(const Graph& graph, const GpuPlan& plan) {
  std::vector<PlannedKernel> kernels;
  for (size_t s = 0; s < plan.steps.size(); ++s)
    if (generates_kernel(plan.steps[s].kind))
      kernels.push_back({static_cast<int>(s), generate_kernel(graph, plan, static_cast<int>(s))});
  return kernels;
}

}  // namespace pet::gpu::codegen
