// Arena placement by greedy-by-size best fit: large blocks are placed while the gaps are still
// wide, and each block only has to avoid the blocks whose lifetimes overlap its own.
#include "kernels/gpu/plan/arena.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/error.h"

namespace pet::gpu {
namespace {

int64_t round_up(int64_t bytes, int64_t alignment) { return (bytes + alignment - 1) / alignment * alignment; }

struct Block {
  int64_t offset;
  int64_t bytes;
};

// The lowest-waste gap among `taken` (sorted by offset) that holds `bytes`, else the top.
int64_t best_fit(const std::vector<Block>& taken, int64_t bytes) {
  int64_t cursor = 0;
  std::optional<int64_t> best, best_gap;
  for (const Block& block : taken) {
    int64_t gap = block.offset - cursor;
    if (gap >= bytes && (!best_gap || gap < *best_gap)) best = cursor, best_gap = gap;
    cursor = std::max(cursor, block.offset + block.bytes);
  }
  return best.value_or(cursor);
}

std::vector<size_t> largest_first(const std::vector<ArenaRequest>& requests, const std::vector<int64_t>& sizes) {
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    return requests[a].lifetime.first_step < requests[b].lifetime.first_step;
  });
  return order;
}

}  // namespace

ArenaLayout allocate_arena(const std::vector<ArenaRequest>& requests, int64_t alignment) {
  PET_CHECK(alignment > 0, "the arena alignment must be positive");
  std::vector<int64_t> sizes;
  for (const ArenaRequest& request : requests) sizes.push_back(round_up(request.bytes, alignment));
  ArenaLayout layout{std::vector<int64_t>(requests.size(), 0), 0, 0};
  std::vector<size_t> placed;
  for (size_t i : largest_first(requests, sizes)) {
    layout.no_reuse_bytes += sizes[i];
    if (sizes[i] == 0) continue;
    std::vector<Block> taken;
    for (size_t j : placed)
      if (requests[j].lifetime.overlaps(requests[i].lifetime)) taken.push_back({layout.offsets[j], sizes[j]});
    std::sort(taken.begin(), taken.end(), [](const Block& a, const Block& b) { return a.offset < b.offset; });
    layout.offsets[i] = best_fit(taken, sizes[i]);
    layout.arena_bytes = std::max(layout.arena_bytes, layout.offsets[i] + sizes[i]);
    placed.push_back(i);
  }
  return layout;
}

std::optional<std::string> find_arena_conflict(const std::vector<ArenaRequest>& requests, const ArenaLayout& layout,
                                               int64_t alignment) {
  for (size_t i = 0; i < requests.size(); ++i) {
    if (layout.offsets[i] % alignment != 0)
      return fmt::format("request {} sits at offset {}, off the {}-byte alignment", i, layout.offsets[i], alignment);
    for (size_t j = i + 1; j < requests.size(); ++j) {
      bool share_bytes = layout.offsets[i] < layout.offsets[j] + requests[j].bytes &&
                         layout.offsets[j] < layout.offsets[i] + requests[i].bytes;
      if (share_bytes && requests[i].lifetime.overlaps(requests[j].lifetime))
        return fmt::format("requests {} (steps {}..{}, bytes {}+{}) and {} (steps {}..{}, bytes {}+{}) overlap", i,
                           requests[i].lifetime.first_step, requests[i].lifetime.last_step, layout.offsets[i],
                           requests[i].bytes, j, requests[j].lifetime.first_step, requests[j].lifetime.last_step,
                           layout.offsets[j], requests[j].bytes);
    }
  }
  return std::nullopt;
}

namespace {

void touch(GpuPlan& plan, ValueId id, int step) {
  Lifetime& lifetime = plan.values[static_cast<size_t>(storage_root(plan.values, id).value)].storage.lifetime;
  lifetime.first_step = lifetime.first_step < 0 ? step : std::min(lifetime.first_step, step);
  lifetime.last_step = std::max(lifetime.last_step, step);
}

// The step after `transpose` (a transpose step) that alone reads its output, when that is a GEMM
// step and the output no graph output; -1 otherwise.
int sole_gemm_reader(const GpuPlan& plan, int transpose) {
  const Step& step = plan.steps[static_cast<size_t>(transpose)];
  if (step.kind != StepKind::transpose || step.nodes.size() != 1 || step.outputs.size() != 1) return -1;
  ValueId output = step.outputs[0];
  if (plan.values[static_cast<size_t>(output)].storage.kind == StorageKind::output) return -1;
  int reader = -1;
  for (int s = transpose + 1; s < static_cast<int>(plan.steps.size()); ++s) {
    const std::vector<ValueId>& inputs = plan.steps[static_cast<size_t>(s)].inputs;
    if (std::find(inputs.begin(), inputs.end(), output) == inputs.end()) continue;
    if (reader >= 0) return -1;
    reader = s;
  }
  return reader >= 0 && plan.steps[static_cast<size_t>(reader)].kind == StepKind::cublaslt_gemm ? reader : -1;
}

// Each value from the first to the last step that reads or writes it; a transpose's input also to
// the GEMM step that alone reads the transpose's output, which the executor may have read through
// the transpose instead (kernels/gpu/executor/transpose_folding.h).
void set_lifetimes(GpuPlan& plan) {
  for (int s = 0; s < static_cast<int>(plan.steps.size()); ++s) {
    const Step& step = plan.steps[static_cast<size_t>(s)];
    for (ValueId id : step.inputs) touch(plan, id, s);
    for (ValueId id : step.outputs) touch(plan, id, s);
    if (int gemm = sole_gemm_reader(plan, s); gemm >= 0)
      for (ValueId id : step.inputs) touch(plan, id, gemm);
  }
}

}  // namespace

void plan_arena(GpuPlan& plan) {
  set_lifetimes(plan);
  std::vector<ValueId> arena_values;
  std::vector<ArenaRequest> requests;
  for (ValueId id = 0; id < static_cast<ValueId>(plan.values.size()); ++id) {
    const PlannedValue& value = plan.values[static_cast<size_t>(id)];
    if (value.storage.kind != StorageKind::arena) continue;
    PET_CHECK(value.storage.lifetime.first_step >= 0,
              fmt::format("arena value '{}' is touched by no step", value.name));
    arena_values.push_back(id);
    requests.push_back({value.storage.bytes, value.storage.lifetime});
  }
  ArenaLayout layout = allocate_arena(requests, plan.alignment);
  std::optional<std::string> conflict = find_arena_conflict(requests, layout, plan.alignment);
  PET_CHECK(!conflict, "the arena layout is unsound: " + conflict.value_or(""));
  for (size_t i = 0; i < arena_values.size(); ++i)
    plan.values[static_cast<size_t>(arena_values[i])].storage.offset = layout.offsets[i];
  plan.arena_bytes = layout.arena_bytes;
  plan.no_reuse_bytes = layout.no_reuse_bytes;
}

}  // namespace pet::gpu
