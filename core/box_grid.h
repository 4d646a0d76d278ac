// Summation boxes: a tensor split, dimension by dimension, into intervals by cut points, so that
// every position of one box has the same summation form (PET's Theorem 1). The verifier tests a
// few positions per box instead of every position.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.h"

namespace pet {

// Half-open box [lo, hi) per dimension.
struct Box {
  std::vector<int64_t> lo;
  std::vector<int64_t> hi;
  int64_t numel() const;
  bool contains(const std::vector<int64_t>& index) const;
  std::string to_string() const;  // "[0:1, 0:64, 27:29, 0:56]"
  bool operator==(const Box&) const = default;
};

class BoxGrid {
 public:
  BoxGrid() = default;
  // One box covering the whole shape.
  static BoxGrid whole(const Shape& shape);
  // cuts[d] must start at 0, end at the dimension and increase strictly (internal check).
  explicit BoxGrid(std::vector<std::vector<int64_t>> cuts);

  int rank() const { return static_cast<int>(cuts_.size()); }
  const std::vector<int64_t>& cuts(int dim) const { return cuts_.at(static_cast<size_t>(dim)); }
  const std::vector<std::vector<int64_t>>& all_cuts() const { return cuts_; }
  Shape shape() const;
  int64_t box_count() const;
  // Boxes in row-major order of their interval indices.
  std::vector<Box> boxes() const;
  // Both grids' cuts together (same shape; internal check).
  BoxGrid refined_with(const BoxGrid& other) const;
  bool operator==(const BoxGrid&) const = default;

 private:
  std::vector<std::vector<int64_t>> cuts_;
};

// Merges boxes that touch along one dimension and agree on all others, until none do; the
// union covered is unchanged. Result sorted.
std::vector<Box> merge_adjacent_boxes(std::vector<Box> boxes);

// Sorted, deduplicated cut list for a dimension of `size` from arbitrary points (clamped to [0, size]).
std::vector<int64_t> normalize_cuts(std::vector<int64_t> points, int64_t size);

// Cuts of an output dimension whose position o reads input positions o*stride - pad + k*dilation
// for k in [0, kernel): positions group together while they read the same input intervals at the
// same offsets and the same padding (conv, pooling, and any windowed linear op).
std::vector<int64_t> window_cuts(int64_t out_size, const std::vector<int64_t>& in_cuts, int64_t stride,
                                 int64_t pad_begin, int64_t dilation, int64_t kernel);

// Cuts after splitting a dimension of size outer*inner into (outer, inner): exact where the cut
// falls on an outer boundary, otherwise refined enough that every product box is uniform.
std::pair<std::vector<int64_t>, std::vector<int64_t>> split_cuts(const std::vector<int64_t>& cuts, int64_t outer,
                                                                 int64_t inner);
// Cuts after merging (outer, inner) into one dimension of size outer*inner.
std::vector<int64_t> merge_cuts(const std::vector<int64_t>& outer_cuts, const std::vector<int64_t>& inner_cuts,
                                int64_t inner);

}  // namespace pet
