// The activation arena: each arena value's lifetime over the steps, and offsets chosen so that two
// values alive at a common step never share a byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {

struct ArenaRequest {
  int64_t bytes = 0;
  Lifetime lifetime;
};

struct ArenaLayout {
  std::vector<int64_t> offsets;  // by request
  int64_t arena_bytes = 0;       // the end of the highest block
  int64_t no_reuse_bytes = 0;    // the aligned sizes added up
};

// Greedy by size: requests from the largest down (ties: earlier first step, then request order)
// each take the smallest gap between the blocks already placed whose lifetimes overlap theirs
// (ties: the lowest offset), else the top of those blocks. Sizes round up to `alignment`, so every
// offset is a multiple of it and the arena never exceeds the no-reuse size. Deterministic.
ArenaLayout allocate_arena(const std::vector<ArenaRequest>& requests, int64_t alignment);

// A description of the first two requests alive at a common step whose bytes overlap, or of an
// offset off `alignment`; nullopt when the layout is sound.
std::optional<std::string> find_arena_conflict(const std::vector<ArenaRequest>& requests, const ArenaLayout& layout,
                                               int64_t alignment);

// Sets the lifetime of every arena value from the steps that read or write it or a view of it,
// places them with allocate_arena (internal check against find_arena_conflict) and records the
// offsets and the plan's arena and no-reuse sizes.
void plan_arena(GpuPlan& plan);

}  // namespace pet::gpu
