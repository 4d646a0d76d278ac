// Box grids and the cut arithmetic that box-propagation rules share.
#include "core/box_grid.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

int64_t Box::numel() const {
  int64_t count = 1;
  for (size_t d = 0; d < lo.size(); ++d) count *= hi[d] - lo[d];
  return count;
}

bool Box::contains(const std::vector<int64_t>& index) const {
  for (size_t d = 0; d < lo.size(); ++d)
    if (index[d] < lo[d] || index[d] >= hi[d]) return false;
  return true;
}

std::string Box::to_string() const {
  std::vector<std::string> parts;
  for (size_t d = 0; d < lo.size(); ++d) parts.push_back(fmt::format("{}:{}", lo[d], hi[d]));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

BoxGrid BoxGrid::whole(const Shape& shape) {
  std::vector<std::vector<int64_t>> cuts;
  for (int64_t d : shape.dims()) cuts.push_back(d == 0 ? std::vector<int64_t>{0} : std::vector<int64_t>{0, d});
  return BoxGrid(std::move(cuts));
}

BoxGrid::BoxGrid(std::vector<std::vector<int64_t>> cuts) : cuts_(std::move(cuts)) {
  for (const auto& dim : cuts_) {
    PET_CHECK(!dim.empty() && dim.front() == 0, "cuts must start at 0");
    PET_CHECK(std::adjacent_find(dim.begin(), dim.end(), std::greater_equal<>()) == dim.end(),
              "cuts must increase strictly");
  }
}

Shape BoxGrid::shape() const {
  std::vector<int64_t> dims;
  for (const auto& dim : cuts_) dims.push_back(dim.back());
  return Shape(dims);
}

int64_t BoxGrid::box_count() const {
  int64_t count = 1;
  for (const auto& dim : cuts_) count *= std::max<int64_t>(0, static_cast<int64_t>(dim.size()) - 1);
  return count;
}

std::vector<Box> BoxGrid::boxes() const {
  std::vector<Box> result;
  if (box_count() == 0) return result;
  std::vector<size_t> interval(cuts_.size(), 0);
  while (true) {
    Box box;
    for (size_t d = 0; d < cuts_.size(); ++d) {
      box.lo.push_back(cuts_[d][interval[d]]);
      box.hi.push_back(cuts_[d][interval[d] + 1]);
    }
    result.push_back(std::move(box));
    int d = static_cast<int>(cuts_.size()) - 1;
    for (; d >= 0; --d) {
      auto u = static_cast<size_t>(d);
      if (++interval[u] + 1 < cuts_[u].size()) break;
      interval[u] = 0;
    }
    if (d < 0) return result;
  }
}

BoxGrid BoxGrid::refined_with(const BoxGrid& other) const {
  PET_CHECK(shape() == other.shape(), "refining grids of different shapes");
  std::vector<std::vector<int64_t>> merged;
  for (size_t d = 0; d < cuts_.size(); ++d) {
    std::vector<int64_t> points = cuts_[d];
    points.insert(points.end(), other.cuts_[d].begin(), other.cuts_[d].end());
    merged.push_back(normalize_cuts(points, cuts_[d].back()));
  }
  return BoxGrid(std::move(merged));
}

std::vector<int64_t> normalize_cuts(std::vector<int64_t> points, int64_t size) {
  for (int64_t& p : points) p = std::clamp<int64_t>(p, 0, size);
  points.push_back(0);
  points.push_back(size);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

// One sweep along `dim`: boxes equal outside `dim` and contiguous along it become one.
static bool merge_along(std::vector<Box>& boxes, size_t dim) {
  auto key = [dim](const Box& box) {
    std::vector<int64_t> k;
    for (size_t d = 0; d < box.lo.size(); ++d)
      if (d != dim) {
        k.push_back(box.lo[d]);
        k.push_back(box.hi[d]);
      }
    k.push_back(box.lo[dim]);
    return k;
  };
  std::sort(boxes.begin(), boxes.end(), [&](const Box& a, const Box& b) { return key(a) < key(b); });
  std::vector<Box> merged;
  bool changed = false;
  for (Box& box : boxes) {
    if (!merged.empty()) {
      Box& last = merged.back();
      bool same_elsewhere = true;
      for (size_t d = 0; d < box.lo.size(); ++d)
        if (d != dim && (last.lo[d] != box.lo[d] || last.hi[d] != box.hi[d])) same_elsewhere = false;
      if (same_elsewhere && last.hi[dim] == box.lo[dim]) {
        last.hi[dim] = box.hi[dim];
        changed = true;
        continue;
      }
    }
    merged.push_back(std::move(box));
  }
  boxes = std::move(merged);
  return changed;
}

std::vector<Box> merge_adjacent_boxes(std::vector<Box> boxes) {
  if (boxes.empty()) return boxes;
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t d = boxes[0].lo.size(); d-- > 0;) changed = merge_along(boxes, d) || changed;
  }
  std::sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) {
    return std::tie(a.lo, a.hi) < std::tie(b.lo, b.hi);
  });
  return boxes;
}

static int64_t interval_of(const std::vector<int64_t>& cuts, int64_t position) {
  return std::upper_bound(cuts.begin(), cuts.end(), position) - cuts.begin() - 1;
}

std::vector<int64_t> window_cuts(int64_t out_size, const std::vector<int64_t>& in_cuts, int64_t stride,
                                 int64_t pad_begin, int64_t dilation, int64_t kernel) {
  int64_t in_size = in_cuts.back();
  std::vector<int64_t> points;
  std::vector<int64_t> previous, signature;
  for (int64_t o = 0; o < out_size; ++o) {
    signature.clear();
    for (int64_t k = 0; k < kernel; ++k) {
      int64_t i = o * stride - pad_begin + k * dilation;
      signature.push_back(i < 0 ? -1 : i >= in_size ? -2 : interval_of(in_cuts, i));
    }
    if (o > 0 && signature != previous) points.push_back(o);
    std::swap(previous, signature);
  }
  return normalize_cuts(points, out_size);
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> split_cuts(const std::vector<int64_t>& cuts, int64_t outer,
                                                                 int64_t inner) {
  std::vector<int64_t> outer_points, inner_points;
  for (int64_t q : cuts) {
    if (q == 0 || q == outer * inner) continue;
    outer_points.push_back(q / inner);
    if (q % inner != 0) {
      outer_points.push_back(q / inner + 1);
      inner_points.push_back(q % inner);
    }
  }
  return {normalize_cuts(outer_points, outer), normalize_cuts(inner_points, inner)};
}

std::vector<int64_t> merge_cuts(const std::vector<int64_t>& outer_cuts, const std::vector<int64_t>& inner_cuts,
                                int64_t inner) {
  int64_t outer = outer_cuts.back();
  std::vector<int64_t> points;
  // Every row boundary is a cut (unless rows are single elements): across it the merged index
  // stops being a shift of the (outer, inner) one, and a box must stay shift-uniform.
  bool cut_rows = inner > 1;
  for (int64_t a = 0; a < outer; ++a) {
    if (cut_rows || std::binary_search(outer_cuts.begin(), outer_cuts.end(), a)) points.push_back(a * inner);
    for (int64_t c : inner_cuts) points.push_back(a * inner + c);
  }
  return normalize_cuts(points, outer * inner);
}

}  // namespace pet
