// The plan checks, written against the graph and the steps alone so that a bug in the plan's own
// lifetimes or view resolution cannot hide itself.
#include "tests/kernels/gpu/plan_checks.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace pet::gpu::testing {
namespace {

const ValueStorage& storage_of(const GpuPlan& plan, ValueId id) { return plan.values[static_cast<size_t>(id)].storage; }
const std::string& name_of(const GpuPlan& plan, ValueId id) { return plan.values[static_cast<size_t>(id)].name; }

// The value owning `id`'s bytes and `id`'s offset in it, following views (at most one hop per value).
std::pair<ValueId, int64_t> owner(const GpuPlan& plan, ValueId id) {
  int64_t offset = 0;
  for (size_t hops = 0; storage_of(plan, id).kind == StorageKind::view && hops <= plan.values.size(); ++hops) {
    offset += storage_of(plan, id).offset;
    id = storage_of(plan, id).base;
  }
  return {id, offset};
}

void check_nodes_covered(const Graph& graph, const GpuPlan& plan, std::vector<std::string>& problems) {
  std::vector<int> seen(graph.nodes().size(), 0);
  for (const Step& step : plan.steps)
    for (NodeId n : step.nodes) ++seen[static_cast<size_t>(n)];
  for (const Alias& alias : plan.aliases) ++seen[static_cast<size_t>(alias.node)];
  for (size_t n = 0; n < seen.size(); ++n)
    if (seen[n] != 1)
      problems.push_back(fmt::format("node '{}' ({}) is in {} steps or aliases", graph.nodes()[n].name,
                                     graph.nodes()[n].op(), seen[n]));
}

void check_storage(const Graph& graph, const GpuPlan& plan, std::vector<std::string>& problems) {
  std::vector<int> step_of_node(graph.nodes().size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (NodeId n : plan.steps[s].nodes) step_of_node[static_cast<size_t>(n)] = static_cast<int>(s);
  auto consumers = graph.consumers();
  for (ValueId id = 0; id < static_cast<ValueId>(graph.values().size()); ++id) {
    const ValueStorage& storage = storage_of(plan, id);
    const Value& value = graph.value(id);
    if (value.constant && storage.kind != StorageKind::weight)
      problems.push_back(fmt::format("constant %{} has storage {}", name_of(plan, id), to_string(storage.kind)));
    if (!value.constant && value.producer < 0 && storage.kind != StorageKind::input)
      problems.push_back(fmt::format("graph input %{} has storage {}", name_of(plan, id), to_string(storage.kind)));
    auto [root, offset] = owner(plan, id);
    if (storage_of(plan, root).kind == StorageKind::view)
      problems.push_back(fmt::format("%{}: its views never reach a value with bytes", name_of(plan, id)));
    if (storage.kind == StorageKind::view && offset + storage.bytes > storage_of(plan, root).bytes)
      problems.push_back(fmt::format("%{}: view bytes {}+{} run past %{}'s {}", name_of(plan, id), offset,
                                     storage.bytes, name_of(plan, root), storage_of(plan, root).bytes));
    if (storage.kind != StorageKind::fused) continue;
    NodeId producer = graph.value(id).producer;
    int step = producer >= 0 ? step_of_node[static_cast<size_t>(producer)] : -1;
    bool inside = step >= 0 && !graph.is_output(id);
    for (NodeId reader : consumers[static_cast<size_t>(id)])
      inside = inside && step_of_node[static_cast<size_t>(reader)] == step;
    if (!inside) problems.push_back(fmt::format("%{} is fused but lives outside one step", name_of(plan, id)));
  }
  for (ValueId id : graph.outputs()) {
    StorageKind kind = storage_of(plan, id).kind;
    if (kind != StorageKind::output && kind != StorageKind::input && kind != StorageKind::weight)
      problems.push_back(fmt::format("graph output %{} has storage {}", name_of(plan, id), to_string(kind)));
  }
}

// The step after which each value is ready: -1 for inputs and weights; aliases pass readiness on.
void check_order(const Graph& graph, const GpuPlan& plan, std::vector<std::string>& problems) {
  std::vector<int> ready(graph.values().size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (NodeId n : plan.steps[s].nodes)
      for (ValueId id : graph.node(n).outputs) ready[static_cast<size_t>(id)] = static_cast<int>(s);
  for (const Alias& alias : plan.aliases) {
    int latest = -1;
    for (ValueId id : graph.node(alias.node).inputs) latest = std::max(latest, ready[static_cast<size_t>(id)]);
    for (ValueId id : graph.node(alias.node).outputs) ready[static_cast<size_t>(id)] = latest;
  }
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (ValueId id : plan.steps[s].inputs) {
      if (storage_of(plan, owner(plan, id).first).kind == StorageKind::fused)
        problems.push_back(fmt::format("step {} reads %{}, which is fused elsewhere", s, name_of(plan, id)));
      if (ready[static_cast<size_t>(id)] >= static_cast<int>(s))
        problems.push_back(fmt::format("step {} reads %{} before step {} writes it", s, name_of(plan, id),
                                       ready[static_cast<size_t>(id)]));
    }
}

struct Span {
  int first = -1;
  int last = -1;
};

std::map<ValueId, Span> arena_lifetimes(const GpuPlan& plan) {
  std::map<ValueId, Span> spans;
  for (int s = 0; s < static_cast<int>(plan.steps.size()); ++s) {
    std::vector<ValueId> touched = plan.steps[static_cast<size_t>(s)].inputs;
    for (ValueId id : plan.steps[static_cast<size_t>(s)].outputs) touched.push_back(id);
    for (ValueId id : touched) {
      ValueId root = owner(plan, id).first;
      if (storage_of(plan, root).kind != StorageKind::arena) continue;
      Span& span = spans[root];
      span.first = span.first < 0 ? s : std::min(span.first, s);
      span.last = std::max(span.last, s);
    }
  }
  return spans;
}

void check_arena(const GpuPlan& plan, std::vector<std::string>& problems) {
  std::map<ValueId, Span> spans = arena_lifetimes(plan);
  for (ValueId id = 0; id < static_cast<ValueId>(plan.values.size()); ++id) {
    const ValueStorage& storage = storage_of(plan, id);
    if (storage.kind != StorageKind::arena) continue;
    if (!spans.count(id)) problems.push_back(fmt::format("arena value %{} is touched by no step", name_of(plan, id)));
    if (storage.offset % plan.alignment != 0 || storage.offset < 0 || storage.offset + storage.bytes > plan.arena_bytes)
      problems.push_back(fmt::format("arena value %{} at {}+{} is misaligned or outside the {}-byte arena",
                                     name_of(plan, id), storage.offset, storage.bytes, plan.arena_bytes));
  }
  for (auto a = spans.begin(); a != spans.end(); ++a)
    for (auto b = std::next(a); b != spans.end(); ++b) {
      const ValueStorage& x = storage_of(plan, a->first);
      const ValueStorage& y = storage_of(plan, b->first);
      bool alive_together = a->second.first <= b->second.last && b->second.first <= a->second.last;
      bool share_bytes = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
      if (alive_together && share_bytes)
        problems.push_back(fmt::format("%{} (steps {}..{}, {}+{}) and %{} (steps {}..{}, {}+{}) share bytes",
                                       name_of(plan, a->first), a->second.first, a->second.last, x.offset, x.bytes,
                                       name_of(plan, b->first), b->second.first, b->second.last, y.offset, y.bytes));
    }
  if (plan.arena_bytes > plan.no_reuse_bytes)
    problems.push_back(fmt::format("arena {} bytes exceeds the no-reuse {}", plan.arena_bytes, plan.no_reuse_bytes));
}

}  // namespace

std::vector<std::string> plan_problems(const Graph& graph, const GpuPlan& plan) {
  std::vector<std::string> problems;
  check_nodes_covered(graph, plan, problems);
  check_storage(graph, plan, problems);
  check_order(graph, plan, problems);
  check_arena(plan, problems);
  return problems;
}

}  // namespace pet::gpu::testing
