// Correction planning: groups the incorrect boxes of one output into the boxes to recompute,
// merging neighbours when one larger recomputation is cheaper than several small ones.
#pragma once

#include <cstdint>
#include <vector>

#include "core/box_grid.h"

namespace pet::corrector {

// Cost of recomputing a set of boxes: their elements plus `overhead` per box (one launch each).
int64_t recompute_cost(const std::vector<Box>& boxes, int64_t overhead);

// Boxes that touch merge exactly first; then, greedily, the pair whose bounding box (absorbing
// every box it contains) lowers recompute_cost the most merges, ties to the first pair in
// sorted order, until no merge helps. The result covers every input box and is sorted.
std::vector<Box> plan_correction_boxes(std::vector<Box> boxes, int64_t overhead);

}  // namespace pet::corrector
