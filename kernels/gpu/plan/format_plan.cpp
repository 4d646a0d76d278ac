// format_plan: the plan as text, one line per step and per alias, each value with its storage.
#include <fmt/format.h>

#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {
namespace {

std::string format_storage(const GpuPlan& plan, const ValueStorage& storage) {
  switch (storage.kind) {
    case StorageKind::weight: {
      std::vector<std::string> uses;
      for (WeightPreparation preparation : storage.preparations) uses.push_back(to_string(preparation));
      return uses.empty() ? "weight" : fmt::format("weight {}", fmt::join(uses, "+"));
    }
    case StorageKind::arena:
      return fmt::format("arena {}+{}", storage.offset, storage.bytes);
    case StorageKind::view:
      return fmt::format("view %{}+{}", plan.values[static_cast<size_t>(storage.base)].name, storage.offset);
    default:
      return to_string(storage.kind);
  }
}

std::string format_value(const GpuPlan& plan, ValueId id) {
  const PlannedValue& value = plan.values[static_cast<size_t>(id)];
  return fmt::format("%{}({})", value.name, format_storage(plan, value.storage));
}

std::string format_values(const GpuPlan& plan, const std::vector<ValueId>& ids) {
  std::vector<std::string> parts;
  for (ValueId id : ids)
    if (id != kNoValue) parts.push_back(format_value(plan, id));
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string format_nodes(const GpuPlan& plan, const std::vector<NodeId>& nodes) {
  std::vector<std::string> names;
  for (NodeId n : nodes) names.push_back(plan.nodes[static_cast<size_t>(n)].name);
  return fmt::format("[{}]", fmt::join(names, ", "));
}

std::string format_extras(const GpuPlan& plan, const Step& step) {
  std::string extras;
  const Epilogue& epilogue = step.epilogue;
  if (epilogue.scale != 1.0f) extras += fmt::format(" scale={}", epilogue.scale);
  if (epilogue.bias != kNoValue) extras += " bias=%" + plan.values[static_cast<size_t>(epilogue.bias)].name;
  if (epilogue.residual != kNoValue) extras += " residual=%" + plan.values[static_cast<size_t>(epilogue.residual)].name;
  if (epilogue.activation != kNoActivation) extras += " activation=" + epilogue.activation;
  if (step.workspace_bytes > 0) extras += fmt::format(" workspace={}", step.workspace_bytes);
  if (step.computes_patch) extras += " patch";
  return extras.empty() ? "" : " |" + extras;
}

std::string format_step(const GpuPlan& plan, size_t index, const Step& step) {
  return fmt::format("{} {} {}: {} -> {}{}\n", index, to_string(step.kind), format_nodes(plan, step.nodes),
                     format_values(plan, step.inputs), format_values(plan, step.outputs), format_extras(plan, step));
}

std::string format_alias(const GpuPlan& plan, const Alias& alias) {
  return fmt::format("alias {} [{}]: {} -> {}\n", to_string(alias.kind),
                     plan.nodes[static_cast<size_t>(alias.node)].name, format_values(plan, alias.inputs),
                     format_values(plan, alias.outputs));
}

}  // namespace

std::string format_plan(const GpuPlan& plan) {
  std::string text = fmt::format("gpu plan: steps {}, aliases {}, arena {} bytes (no reuse {}), workspace {} bytes\n",
                                 plan.steps.size(), plan.aliases.size(), plan.arena_bytes, plan.no_reuse_bytes,
                                 plan.workspace_bytes());
  for (size_t i = 0; i < plan.steps.size(); ++i) text += format_step(plan, i, plan.steps[i]);
  for (const Alias& alias : plan.aliases) text += format_alias(plan, alias);
  return text;
}

}  // namespace pet::gpu
