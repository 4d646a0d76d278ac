// Greedy box merging under the element + per-launch cost of plan_boxes.h.
#include "corrector/plan_boxes.h"

#include <algorithm>
#include <optional>

#include "corrector/read_region.h"

namespace pet::corrector {
namespace {

bool contains_box(const Box& outer, const Box& inner) {
  for (size_t d = 0; d < outer.lo.size(); ++d)
    if (inner.lo[d] < outer.lo[d] || inner.hi[d] > outer.hi[d]) return false;
  return true;
}

bool box_less(const Box& a, const Box& b) { return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi; }

// The boxes after merging boxes[i] and boxes[j] into their bounding box.
std::vector<Box> merged(const std::vector<Box>& boxes, size_t i, size_t j) {
  Box joined = bounding_box(boxes[i], boxes[j]);
  std::vector<Box> result{joined};
  for (const Box& box : boxes)
    if (!contains_box(joined, box)) result.push_back(box);
  std::sort(result.begin(), result.end(), box_less);
  return result;
}

// The cheapest single merge, if any lowers the cost.
std::optional<std::vector<Box>> best_merge(const std::vector<Box>& boxes, int64_t overhead) {
  int64_t best_cost = recompute_cost(boxes, overhead);
  std::optional<std::vector<Box>> best;
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      std::vector<Box> candidate = merged(boxes, i, j);
      int64_t cost = recompute_cost(candidate, overhead);
      if (cost < best_cost) best_cost = cost, best = std::move(candidate);
    }
  return best;
}

}  // namespace

int64_t recompute_cost(const std::vector<Box>& boxes, int64_t overhead) {
  int64_t total = 0;
  for (const Box& box : boxes) total += box.numel() + overhead;
  return total;
}

std::vector<Box> plan_correction_boxes(std::vector<Box> boxes, int64_t overhead) {
  boxes = merge_adjacent_boxes(std::move(boxes));
  std::sort(boxes.begin(), boxes.end(), box_less);
  while (auto better = best_merge(boxes, overhead)) boxes = std::move(*better);
  return boxes;
}

}  // namespace pet::corrector
